package deliver_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon"
	"github.com/trailboss/trailboss/daemon/wire"
	"github.com/trailboss/trailboss/tmuxctl/tmuxtest"
)

// geminiDialog is Gemini CLI 0.61.0's shell approval as it draws it
// (../shared/fixtures/real/gemini-0.61.0/screen-06-permission.txt), for command.
func geminiDialog(t *testing.T, command string) string {
	t.Helper()
	b, err := os.ReadFile("../../adapter/prompt/testdata/gemini-0.61.0/screen-06-permission.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.ReplaceAll(string(b), "echo hi-from-fake > fake_out.txt", command), "\n", "\r\n")
}

// An approval of Gemini CLI typed as keys takes the session out of the queue once the
// dialog is gone from the pane (Gemini says nothing until the command has run); a denial,
// an approval whose pane then shows another approval, and one for a harness whose hooks
// say the approval, leave the session queued for their own signals.
func TestGeminiApprovalTakesTheSessionOutOnceTheDialogIsGone(t *testing.T) {
	const working = "✦ Running touch x\r\n"
	for _, tc := range []struct {
		name, choice, after string
		silent, out         bool
	}{
		{"allowed, the dialog gone", adapter.ChoiceAllow, working, true, true},
		{"denied", adapter.ChoiceDeny, working, true, false},
		{"allowed, another approval drawn", adapter.ChoiceAllow, "other", true, false},
		{"allowed, the harness not marked silent", adapter.ChoiceAllow, working, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := tmuxtest.New(t)
			e, _ := newEngine(t)
			d := deliverer(e, env)
			if tc.silent {
				d.SilentApproval = daemon.SilentApprovals()
			}
			dialog := geminiDialog(t, "touch x")
			after := tc.after
			if after == "other" {
				after = geminiDialog(t, "touch y")
			}
			// The program shows the dialog, reads one key, then draws what follows.
			script := `stty raw -echo; printf '\033[2J\033[H%s' "$1"; dd bs=1 count=1 2>/dev/null >/dev/null; ` +
				`printf '\033[2J\033[H%s' "$2"; exec sleep 600`
			pane := env.NewPane(t, "main", "sh", "-c", script, "gemini", dialog, after)
			env.WaitFor(t, "the dialog on screen", 5*time.Second, func() bool {
				return strings.Contains(env.Tmux(t, "capture-pane", "-p", "-t", pane), "Allow execution of")
			})
			p := stuckAs(t, e, env, adapter.HarnessGemini, "g1", pane,
				adapter.PermissionAsk("Shell: touch x", adapter.AskFromHook))

			got, err := d.Answer(context.Background(), p.ID, wire.Answer{Choice: tc.choice})
			if err != nil || !got.Delivered || got.Via != wire.ViaKeys || !got.Confirmed {
				t.Fatalf("answer = %+v, %v; want delivered by keys and seen taken", got, err)
			}
			s, ok := e.Session("g1")
			if !ok {
				t.Fatal("the session is gone")
			}
			if s.Stuck == tc.out {
				t.Errorf("after the answer the session is stuck=%v, want %v", s.Stuck, !tc.out)
			}
		})
	}
}
