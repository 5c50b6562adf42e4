package telegram

import (
	"strings"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
	"github.com/trailboss/trailboss/daemon/queue"
	faketelegram "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
)

func prompt(kind, question string, choices ...adapter.AskChoice) queue.Prompt {
	return queue.Prompt{ID: "p0123456789abcdef", Nonce: "fedcba9876543210", Status: queue.PromptPending,
		Ask: adapter.Ask{Kind: kind, Question: question, Choices: choices}, ExpiresAt: time.Date(2026, 1, 2, 15, 4, 0, 0, time.UTC)}
}

// What an agent, a screen or a folder says is escaped, so that the message always parses
// as Telegram's HTML, and shows as it was written.
func TestMessageEscapesWhatAgentsSay(t *testing.T) {
	p := prompt(adapter.AskPermission, `Bash: echo "<b>hi</b>" && rm -rf ./build > /dev/null`, adapter.PermissionAsk("", "").Choices...)
	v := view{Prompt: p, Where: place{Project: "a<b>&c", Branch: "fix/<x>", Tmux: "w&k:2"}}
	html := messageHTML(v, time.UTC)
	text, err := telegramParse(html)
	if err != nil {
		t.Fatalf("the message does not parse as Telegram HTML: %v\n%s", err, html)
	}
	for _, want := range []string{`echo "<b>hi</b>" && rm -rf ./build > /dev/null`, "a<b>&c (fix/<x>) · tmux w&k:2", "asks permission", "until 15:04"} {
		if !strings.Contains(text, want) {
			t.Errorf("the message shows %q, want it to contain %q", text, want)
		}
	}
	closed, err := telegramParse(closedHTML(html, outcome(queue.Prompt{Status: queue.PromptExpired}, true, time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(closed, "until 15:04") || !strings.Contains(closed, "Expired") || !strings.Contains(closed, "rm -rf") {
		t.Errorf("the closed message shows %q", closed)
	}
}

func telegramParse(html string) (string, error) {
	// The fake Bot API's parser is Telegram's rules as the tests know them.
	return faketelegram.ParseHTML(html)
}

func TestClipCutsOnAWordWithAnEllipsis(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one two three four five", 14, "one two three…"},
		{"abcdefghijklmnop", 5, "abcde…"},
		{"bell\x07 and\x1b[31m red", 40, "bell and[31m red"},
		{"élan vital", 4, "élan…"},
	} {
		if got := clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// Callback data fits in 64 bytes and reads back to the same prompt, nonce and choice; a
// key too long to fit is carried by its index.
func TestCallbackDataRoundTrips(t *testing.T) {
	long := strings.Repeat("k", 40)
	p := prompt(adapter.AskMenu, "Pick", adapter.AskChoice{Key: "1", Label: "one"}, adapter.AskChoice{Key: long, Label: "long"})
	for i, c := range p.Ask.Choices {
		data := callbackData(p, i)
		if len(data) > 64 {
			t.Fatalf("callback data %q is %d bytes", data, len(data))
		}
		got, ok := parseCallback(data)
		if !ok || got.PromptID != p.ID || got.Nonce != p.Nonce {
			t.Fatalf("parseCallback(%q) = %+v, %v", data, got, ok)
		}
		if (got.Key != c.Key || got.Index != -1) && got.Index != i {
			t.Errorf("choice %d (%q) read back as %+v", i, c.Key, got)
		}
	}
	if _, ok := parseCallback(callbackData(p, 1)); !ok {
		t.Error("an index choice does not parse")
	}
	for _, bad := range []string{"", "a:p1:n", "x:p1:n:y", "a::n:y", "a:p1:n:#-1", "a:p1:n:#x", "a:p1:n:" + strings.Repeat("y", 70)} {
		if got, ok := parseCallback(bad); ok {
			t.Errorf("parseCallback(%q) = %+v, want refused", bad, got)
		}
	}
}

func kbOf(p queue.Prompt) *Keyboard { return compose(view{Prompt: p}, time.UTC).Keyboard }

func TestKeyboardHasAButtonPerChoice(t *testing.T) {
	if kb := kbOf(prompt(adapter.AskFreeText, "Message?")); kb != nil {
		t.Errorf("a free-text prompt has buttons %+v", kb)
	}
	kb := kbOf(prompt(adapter.AskPermission, "Bash: ls", adapter.PermissionAsk("", "").Choices...))
	if len(kb.Rows) != 1 || len(kb.Rows[0]) != 2 || !strings.Contains(kb.Rows[0][0].Text, "Allow") || !strings.HasSuffix(kb.Rows[0][1].Data, ":deny") {
		t.Errorf("permission keyboard %+v", kb)
	}
	menu := prompt(adapter.AskMenu, "Which?", adapter.AskChoice{Key: "1", Label: "Yes, and don't ask again for this command"},
		adapter.AskChoice{Key: "2", Label: "No"})
	if kb := kbOf(menu); len(kb.Rows) != 2 || kb.Rows[0][0].Text != "1. Yes, and don't ask again for this…" {
		t.Errorf("a menu with a long option: %+v, want one option a row", kb)
	}
}

func TestPlainTextIsTheWordsOfTheHTML(t *testing.T) {
	h := messageHTML(view{Prompt: prompt(adapter.AskFreeText, "a < b && c > d"), Where: place{Project: "x&y"}}, time.UTC)
	got := plainText(h)
	for _, want := range []string{"x&y", "a < b && c > d", "Reply to this message"} {
		if !strings.Contains(got, want) {
			t.Errorf("plainText = %q, want it to contain %q", got, want)
		}
	}
	if strings.ContainsAny(strings.ReplaceAll(got, "a < b && c > d", ""), "<>") {
		t.Errorf("plainText left a tag: %q", got)
	}
}
