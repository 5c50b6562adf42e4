package gemini

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

var meta = adapter.Meta{Pane: "%0", Tmux: "/tmp/tmux.sock,14447,0", EmittedAt: time.Unix(1796308600, 0)}

// TestParseRealHooks reads every hook Gemini CLI 0.61.0 fired in a session (the real
// capture, its environment left out): a prompt, a turn's end, a shell permission, a
// question, /quit.
func TestParseRealHooks(t *testing.T) {
	f, err := os.Open("testdata/hooks-0.61.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		evs, err := Parse(sc.Bytes(), meta)
		if errors.Is(err, adapter.ErrIgnored) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", sc.Text()[:80], err)
		}
		ev := evs[0]
		if ev.Pane != "%0" || ev.TmuxSocket != "/tmp/tmux.sock" || ev.SessionID != "af852c3b-1d89-45f0-b9d1-7bcf0bc4482d" {
			t.Errorf("identity: %+v", ev)
		}
		s := string(ev.Kind)
		if ev.Kind == adapter.KindStuck {
			s += " " + ev.Reason + " " + ev.Detail + " " + ev.Summary
		}
		if ev.Ask != nil {
			s += " ask=" + ev.Ask.Kind + ":" + ev.Ask.Question
		}
		if ev.Call != nil {
			s += " call=" + ev.Call.Tool
			if ev.Call.Ask != nil {
				s += " " + ev.Call.Summary + " ask=" + ev.Call.Ask.Kind
				for _, c := range ev.Call.Ask.Choices {
					s += " " + c.Key + "=" + c.Label
				}
			}
		}
		got = append(got, s)
	}
	want := []string{
		"start",
		"unstuck",
		"stuck stopped  FAKE: hello from the fake model.",
		"unstuck",
		"stuck permission exec Shell: echo hi-from-fake > fake_out.txt ask=permission:Shell: echo hi-from-fake > fake_out.txt",
		"unstuck call=run_shell_command",
		"stuck stopped  FAKE: tool finished, all done.",
		"unstuck",
		"touch call=ask_user Red or blue? [red / blue] ask=choice 1=red 2=blue",
		"stuck permission notification a question: answer it in the pane",
		"unstuck call=ask_user",
		"stuck stopped  FAKE: tool finished, all done.",
		"end",
		"end",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestParseRefuses: a payload that is not one object with a session and an event is
// invalid; an event Trail Boss does not use is ignored.
func TestParseRefuses(t *testing.T) {
	for _, body := range []string{`[]`, `{"session_id":"s"}`, `{"hook_event_name":"AfterAgent"}`, `{} {}`} {
		if _, err := Parse([]byte(body), meta); !errors.Is(err, adapter.ErrInvalid) {
			t.Errorf("%s: %v, want invalid", body, err)
		}
	}
	for _, body := range []string{
		`{"session_id":"s","hook_event_name":"PreCompress"}`,
		`{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command"}`,
	} {
		if _, err := Parse([]byte(body), meta); !errors.Is(err, ErrUnknownEvent) {
			t.Errorf("%s: %v, want ignored", body, err)
		}
	}
}

// TestPermissionWithoutCommandIsAnsweredInThePane: only a command is checked on screen
// before a key is typed, so any other permission takes no answer from afar.
func TestPermissionWithoutCommandIsAnsweredInThePane(t *testing.T) {
	evs, err := Parse([]byte(`{"session_id":"s","hook_event_name":"Notification","notification_type":"ToolPermission",
		"message":"Tool requires confirmation","details":{"type":"edit","title":"Confirm Edit"}}`), meta)
	if err != nil {
		t.Fatal(err)
	}
	if ev := evs[0]; ev.Kind != adapter.KindStuck || ev.Ask == nil || ev.Ask.Kind != adapter.AskNone {
		t.Errorf("edit permission: %+v", ev)
	}
}
