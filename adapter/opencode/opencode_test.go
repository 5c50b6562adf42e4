package opencode

import (
	"bufio"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

var meta = adapter.Meta{Pane: "%1", Tmux: "/tmp/tmux-1000/default,123,0", EmittedAt: time.Unix(1795612108, 0)}

// busEvents returns the bus events the real OpenCode 1.18.33 gave a probe plugin
// (testdata/bus-events.jsonl, from ../shared/fixtures/real/opencode-1.18.33), by type;
// for a type seen twice, the later.
func busEvents(t *testing.T) map[string][]byte {
	t.Helper()
	f, err := os.Open("testdata/bus-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		p, err := DecodePayload(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		out[p.Type] = append([]byte(nil), sc.Bytes()...)
	}
	return out
}

func TestParseRealEvents(t *testing.T) {
	evs := busEvents(t)
	const session = "ses_ded2d9a30ffeTeBc3tEvgXXKU2"
	tests := []struct {
		typ     string
		kind    adapter.Kind
		reason  string
		detail  string
		summary string
		ask     string // the Ask's kind, "" for none
	}{
		{SessionCreated, adapter.KindStart, "", "", "", ""},
		{SessionStatus, adapter.KindUnstuck, "", "", "", ""},
		{SessionIdle, adapter.KindStuck, adapter.ReasonStopped, "", "", ""},
		{PermissionAsked, adapter.KindStuck, adapter.ReasonPermission, "bash", "bash: touch <WORK>/scratch/y", adapter.AskPermission},
		{PermissionReplied, adapter.KindUnstuck, "", "", "", ""},
		{QuestionAsked, adapter.KindStuck, adapter.ReasonPermission, "question", "Which colour do you want? [Red / Blue]", adapter.AskMenu},
		{QuestionReplied, adapter.KindUnstuck, "", "", "", ""},
		{QuestionRejected, adapter.KindUnstuck, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			got, err := Parse(evs[tt.typ], meta)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("%d events, want 1", len(got))
			}
			ev := got[0]
			if ev.SessionID != session || ev.Pane != "%1" || ev.TmuxSocket != "/tmp/tmux-1000/default" || ev.Harness != Harness {
				t.Errorf("identity: %+v", ev)
			}
			if ev.Kind != tt.kind || ev.Reason != tt.reason || ev.Detail != tt.detail || ev.Summary != tt.summary {
				t.Errorf("got kind %q reason %q detail %q summary %q; want %q %q %q %q",
					ev.Kind, ev.Reason, ev.Detail, ev.Summary, tt.kind, tt.reason, tt.detail, tt.summary)
			}
			switch {
			case tt.ask == "" && ev.Ask != nil:
				t.Errorf("ask %+v, want none", ev.Ask)
			case tt.ask != "" && (ev.Ask == nil || ev.Ask.Kind != tt.ask || ev.Ask.Subject == ""):
				t.Errorf("ask %+v, want kind %q with the request as its subject", ev.Ask, tt.ask)
			}
		})
	}
}

func TestQuestionKeepsItsOptions(t *testing.T) {
	got, err := Parse(busEvents(t)[QuestionAsked], meta)
	if err != nil {
		t.Fatal(err)
	}
	ask := got[0].Ask
	want := []adapter.AskChoice{{Key: "1", Label: "Red"}, {Key: "2", Label: "Blue"}}
	if ask.Question != "Which colour do you want?" || len(ask.Choices) != 2 || ask.Choices[0] != want[0] || ask.Choices[1] != want[1] {
		t.Errorf("ask %+v, want the question with choices %v", ask, want)
	}
	if ask.Subject != "que_212d30bb30018LKItQZPKBRJle" {
		t.Errorf("subject %q, want the request's id", ask.Subject)
	}
}

func TestTurnEndCarriesItsText(t *testing.T) {
	got, err := Parse([]byte(`{"type":"session.idle","properties":{"sessionID":"ses_1"},"text":"hi there"}`), meta)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Summary != "hi there" || got[0].Reason != adapter.ReasonStopped {
		t.Errorf("got %+v", got[0])
	}
}

func TestDisposeEndsTheSession(t *testing.T) {
	got, err := Parse([]byte(`{"type":"dispose","properties":{"sessionID":"ses_1"}}`), meta)
	if err != nil || got[0].Kind != adapter.KindEnd {
		t.Fatalf("got %+v, %v; want an end", got, err)
	}
}

func TestIgnoredAndInvalid(t *testing.T) {
	for _, body := range []string{
		`{"type":"session.status","properties":{"sessionID":"ses_1","status":{"type":"idle"}}}`,
		`{"type":"message.updated","properties":{"sessionID":"ses_1"}}`,
		`{"type":"session.created","properties":{"sessionID":"ses_2","info":{"parentID":"ses_1"}}}`,
	} {
		if _, err := Parse([]byte(body), meta); !errors.Is(err, adapter.ErrIgnored) {
			t.Errorf("%s: err %v, want ignored", body, err)
		}
	}
	for _, body := range []string{`[]`, `{}`, `{"type":"session.idle","properties":{}}`, `{"type":"session.idle"} {}`} {
		if _, err := Parse([]byte(body), meta); !errors.Is(err, adapter.ErrInvalid) {
			t.Errorf("%s: err %v, want invalid", body, err)
		}
	}
}

func TestReplyFor(t *testing.T) {
	evs := busEvents(t)
	tests := []struct {
		typ, choice string
		reply       string
		answers     string
		bad         bool
	}{
		{PermissionAsked, "allow", "once", "", false},
		{PermissionAsked, "deny", "reject", "", false},
		{PermissionAsked, "1", "", "", true},
		{QuestionAsked, "2", "", "Blue", false},
		{QuestionAsked, "3", "", "", true},
		{SessionIdle, "allow", "", "", true},
	}
	for _, tt := range tests {
		p, err := DecodePayload(evs[tt.typ])
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.ReplyFor(tt.choice)
		if (err != nil) != tt.bad {
			t.Errorf("%s %s: err %v, want failure %v", tt.typ, tt.choice, err, tt.bad)
			continue
		}
		if tt.bad {
			continue
		}
		var answers string
		if len(r.Answers) == 1 && len(r.Answers[0]) == 1 {
			answers = r.Answers[0][0]
		}
		if r.Reply != tt.reply || answers != tt.answers || r.RequestID == "" {
			t.Errorf("%s %s: got %+v, want reply %q answers %q", tt.typ, tt.choice, r, tt.reply, tt.answers)
		}
	}
}

func TestHoldable(t *testing.T) {
	evs := busEvents(t)
	for typ, body := range evs {
		want := typ == PermissionAsked || typ == QuestionAsked
		p, err := DecodePayload(body)
		if err != nil {
			t.Fatal(err)
		}
		if p.Holdable() != want {
			t.Errorf("Holdable(%s) = %v, want %v", typ, !want, want)
		}
	}
}

// Parse is DecodePayload, then Events: what the daemon does with one plugin payload.
func Parse(body []byte, meta adapter.Meta) ([]adapter.Event, error) {
	p, err := DecodePayload(body)
	if err != nil {
		return nil, err
	}
	return p.Events(meta)
}
