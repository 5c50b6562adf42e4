package tmuxctl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/tmuxctl"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

func TestCapturePanes(t *testing.T) {
	e := tmuxtest.New(t)
	ctx := testContext(t)
	// The second pane prints what a marker looks like, minus the part chosen per call.
	a := e.NewPane(t, "main", "sh", "-c", "echo first-pane; sleep 1000")
	b := e.NewPane(t, "main", "sh", "-c", `printf 'second-pane\n\037tbx\n\n  spaced  \n'; sleep 1000`)
	e.WaitFor(t, "both panes drawn", waitLong, func() bool {
		got, err := e.Server.CapturePanes(ctx, []string{a, b})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(got[a], "first-pane\n") && strings.Contains(got[b], "  spaced  \n")
	})
	got, err := e.Server.CapturePanes(ctx, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		one, err := e.Server.CapturePane(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if got[p] != one {
			t.Errorf("pane %s: batched capture %q, alone %q", p, got[p], one)
		}
	}

	// A pane that is gone is left out; the others are still captured.
	got, err = e.Server.CapturePanes(ctx, []string{a, "%99999", b})
	if err != nil {
		t.Fatalf("with a missing pane: %v", err)
	}
	if _, ok := got["%99999"]; ok || !strings.Contains(got[a], "first-pane") || !strings.Contains(got[b], "second-pane") {
		t.Errorf("with a missing pane: %q", got)
	}

	if got, err := e.Server.CapturePanes(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("no panes: %v, %v", got, err)
	}
	if _, err := e.Server.CapturePanes(ctx, []string{a, "1;kill-server"}); !errors.Is(err, tmuxctl.ErrInvalidTarget) {
		t.Errorf("bad pane id: %v, want ErrInvalidTarget", err)
	}
}
