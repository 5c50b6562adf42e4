package guard

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestRunTurnsAPanicIntoAnErrorAndLogsItsStack(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	err := Run(log, "reading a transcript", []any{"session", "s1"}, func() {
		var lines []string
		_ = lines[len(lines)] // an index out of range: the kind of bug one bad input meets
	})
	if err == nil || !strings.Contains(err.Error(), "internal error while reading a transcript") {
		t.Fatalf("err = %v, want the panic as an error naming what was handled", err)
	}
	for _, want := range []string{"session=s1", "while=\"reading a transcript\"", "guard_test.go"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logged.String())
		}
	}
}

func TestRunLetsAGoodCallThroughQuietly(t *testing.T) {
	var logged bytes.Buffer
	ran := false
	if err := Run(slog.New(slog.NewTextHandler(&logged, nil)), "x", nil, func() { ran = true }); err != nil || !ran {
		t.Fatalf("err = %v, ran = %v", err, ran)
	}
	if logged.Len() != 0 {
		t.Fatalf("a call that did not panic logged %q", logged.String())
	}
}
