package deliver

import (
	"errors"
	"testing"

	"github.com/trailboss/trailboss/daemon/wire"
)

// refusalReason returns the reason of a *wire.PromptRefusal, or "" when err is none.
func refusalReason(err error) string {
	var r *wire.PromptRefusal
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}

// The text looked for on screen is the end of the last line: what a wrap rarely splits.
func TestShownTail(t *testing.T) {
	for in, want := range map[string]string{"yes": "yes", "run the migration now": "tion now", "a\nb c\n": "b c", "  ": ""} {
		if got := shownTail(in); got != want {
			t.Errorf("shownTail(%q) = %q, want %q", in, got, want)
		}
	}
}
