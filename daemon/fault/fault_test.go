package fault

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The core wraps these with context on their way out; each face tells them apart with
// errors.Is and errors.As, so the wrapping must keep them visible.
func TestFaultsSurviveWrapping(t *testing.T) {
	disk := errors.New("database or disk is full")
	notStored := fmt.Errorf("apply event: %w", fmt.Errorf("%w: %w", ErrNotStored, disk))
	if !errors.Is(notStored, ErrNotStored) || !errors.Is(notStored, disk) {
		t.Errorf("%v: lost ErrNotStored or its cause", notStored)
	}
	var refused *RefusedError
	if err := fmt.Errorf("ingest: %w", &RefusedError{Reason: "unknown harness"}); !errors.As(err, &refused) || refused.Reason != "unknown harness" {
		t.Errorf("%v: lost the RefusedError", err)
	}
	var notSaved *NotSavedError
	err := fmt.Errorf("claim: %w", &NotSavedError{Err: disk})
	if !errors.As(err, &notSaved) || !errors.Is(err, disk) {
		t.Errorf("%v: lost the NotSavedError or its cause", err)
	}
}

// A person reads NotSavedError's text on a phone or in the popup: it says nothing was typed
// and what to do.
func TestNotSavedSaysNothingWasTypedAndWhatToDo(t *testing.T) {
	msg := (&NotSavedError{Err: errors.New("disk full")}).Error()
	for _, want := range []string{"disk full", "nothing was typed", "try again", "answer in the pane"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}
