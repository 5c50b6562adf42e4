package popup

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/trailboss/trailboss/daemon/client"
)

// newModel is a popup over d and tm at 100×30, loaded as the CLI loads it (before the
// program starts), with its Init commands run.
func newModel(t *testing.T, d *stubDaemon, tm *stubTmux) Model {
	t.Helper()
	s := Load(context.Background(), d, tm)
	m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: asciiStyles(), Width: 100, Height: 30,
		First: &s, Now: func() time.Time { return clock }, Refresh: time.Millisecond})
	m, _ = pump(t, m, m.Init())
	return m
}

// keyMsg turns a key's name into the message Bubble Tea sends for it.
func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// pump runs cmd and feeds what it returns back into the model until nothing is left, as
// the Bubble Tea runtime would; ticks are dropped (each would start another round). It
// reports whether the model asked to quit.
func pump(t *testing.T, m Model, cmd tea.Cmd) (Model, bool) {
	t.Helper()
	quit := false
	queue := []tea.Cmd{cmd}
	for rounds := 0; len(queue) > 0; rounds++ {
		if rounds > 100 {
			t.Fatal("commands do not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			quit = true
		case tickMsg, nil:
		default:
			var next tea.Model
			next, c = m.Update(msg)
			m = next.(Model)
			queue = append(queue, c)
		}
	}
	return m, quit
}

// send gives msg to the model and runs what it starts.
func send(t *testing.T, m Model, msg tea.Msg) (Model, bool) {
	t.Helper()
	next, cmd := m.Update(msg)
	return pump(t, next.(Model), cmd)
}

// press types keys one after another and runs what they start.
func press(t *testing.T, m Model, keys ...string) (Model, bool) {
	t.Helper()
	quit := false
	for _, k := range keys {
		next, cmd := m.Update(keyMsg(k))
		var q bool
		m, q = pump(t, next.(Model), cmd)
		quit = quit || q
	}
	return m, quit
}

func selectedID(m Model) string {
	r, ok := m.selected()
	if !ok {
		return ""
	}
	return r.item.SessionID
}

func visibleIDs(m Model) []string {
	var ids []string
	for _, vi := range m.visible {
		ids = append(ids, m.rows[vi].item.SessionID)
	}
	return ids
}

// inOrder reports whether every string appears in s, each after the one before.
func inOrder(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

func TestListShowsTheQueueInOrderWithCoolingBelow(t *testing.T) {
	d, tm := fixture()
	// The cooling item first in the answer: the view still puts it below the ready ones.
	d.items = append(d.items[3:], d.items[:3]...)
	m := newModel(t, d, tm)
	v := m.View()
	if !inOrder(v, "⚠ 3 stuck · 1 cooling",
		"1", "11m", "permission/Bash", "main:1", "api", "Bash: go test ./... && git push",
		"2", "4m", "stopped", "main:2", "web", "The dark-mode toggle works.",
		"3", "38s", "ops:0", "infra", "terraform apply",
		"cooling down after a skip", "4~", "cooling 42s", "stopped/question", "main:4", "docs", "outlines") {
		t.Errorf("the list is not in queue order with the cooling item last:\n%s", v)
	}
	if got := strings.Count(v, "\n") + 1; got != 30 {
		t.Errorf("the view is %d lines, want the height, 30:\n%s", got, v)
	}
}

func TestMoveKeys(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{nil, "api-1"},
		{[]string{"down"}, "web-1"},
		{[]string{"j"}, "web-1"},
		{[]string{"j", "j"}, "infra-1"},
		{[]string{"j", "down", "j"}, "docs-1"}, // into the cooling rows
		{[]string{"j", "j", "j", "j", "j", "j"}, "docs-1"},
		{[]string{"k"}, "api-1"},
		{[]string{"up"}, "api-1"},
		{[]string{"j", "j", "up"}, "web-1"},
		{[]string{"j", "j", "k", "k"}, "api-1"},
	} {
		t.Run(strings.Join(tc.keys, ","), func(t *testing.T) {
			d, tm := fixture()
			m, quit := press(t, newModel(t, d, tm), tc.keys...)
			if got := selectedID(m); got != tc.want || quit {
				t.Errorf("selected %s (quit %v), want %s", got, quit, tc.want)
			}
			if line := cursorRow(m.View()); !strings.Contains(line, m.rows[m.visible[m.cursor]].summary[:10]) {
				t.Errorf("the › is on %q, not on the selected row", line)
			}
		})
	}
}

// cursorRow is the line of the view that holds the cursor.
func cursorRow(v string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "›") {
			return l
		}
	}
	return ""
}

func TestPreviewIsCapturedOnSelectionAndCachedPerPane(t *testing.T) {
	d, tm := fixture()
	m := newModel(t, d, tm)
	if got := tm.captures(); !slices.Equal(got, []string{"%2"}) {
		t.Fatalf("captures at start = %v, want only the selected pane %%2", got)
	}
	if v := m.View(); !inOrder(v, "main:1 · %2 · api", "Bash command", "Do you want to proceed?") {
		t.Errorf("no preview of %%2:\n%s", v)
	}
	m, _ = press(t, m, "j")
	if v := m.View(); !inOrder(v, "main:2 · %3 · web", "Should it follow the system setting") {
		t.Errorf("no preview of %%3:\n%s", v)
	}
	m, _ = press(t, m, "k", "j", "k")
	if got := tm.captures(); !slices.Equal(got, []string{"%2", "%3"}) {
		t.Errorf("captures = %v, want each pane once (cached)", got)
	}
	// A refresh captures the selected pane again: its screen moves on.
	_, _ = send(t, m, tickMsg(clock))
	if got := tm.captures(); !slices.Equal(got, []string{"%2", "%3", "%2"}) {
		t.Errorf("captures after a refresh = %v, want the selected pane again", got)
	}
}

func TestPreviewSaysWhenThePaneIsGone(t *testing.T) {
	d, tm := fixture()
	delete(tm.screens, "%2")
	m := newModel(t, d, tm)
	if v := m.View(); !strings.Contains(v, "no preview: tmux capture-pane: no such tmux pane") {
		t.Errorf("no word of the failed capture:\n%s", v)
	}
}

func TestDigitsSelectAndJump(t *testing.T) {
	for k, want := range map[string]string{"1": "api-1", "2": "web-1", "3": "infra-1", "4": "docs-1"} {
		d, tm := fixture()
		m, quit := press(t, newModel(t, d, tm), "j", "j", k) // from anywhere
		it, ok := m.Choice()
		if !quit || !ok || it.SessionID != want || it.Pane == "" {
			t.Errorf("%s: quit %v, choice %v %q, want %s", k, quit, ok, it.SessionID, want)
		}
		if m.View() != "" {
			t.Errorf("%s: the last frame is not empty", k)
		}
	}
	for _, k := range []string{"5", "9"} {
		d, tm := fixture()
		m, quit := press(t, newModel(t, d, tm), k)
		if _, ok := m.Choice(); quit || ok || selectedID(m) != "api-1" {
			t.Errorf("%s with 4 items: quit %v, choice %v, selected %s; want nothing to happen", k, quit, ok, selectedID(m))
		}
	}
}

func TestEnterReturnsTheSelectedItem(t *testing.T) {
	d, tm := fixture()
	m, quit := press(t, newModel(t, d, tm), "down", "enter")
	it, ok := m.Choice()
	if !quit || !ok || it.SessionID != "web-1" || it.Pane != "%3" {
		t.Fatalf("quit %v, choice %v %+v; want web-1 on %%3", quit, ok, it)
	}
}

func TestCloseKeysReturnNoChoice(t *testing.T) {
	for _, k := range []string{"q", "esc", "ctrl+c"} {
		d, tm := fixture()
		m, quit := press(t, newModel(t, d, tm), "j", k)
		if _, ok := m.Choice(); !quit || ok {
			t.Errorf("%s: quit %v, choice %v; want quit without a choice", k, quit, ok)
		}
	}
}

func TestCannotJumpToAPaneOfAnotherServer(t *testing.T) {
	d, tm := fixture()
	d.items[1].TmuxSocket = "/other"
	m, quit := press(t, newModel(t, d, tm), "j", "enter")
	if _, ok := m.Choice(); quit || ok {
		t.Fatalf("quit %v, choice %v; want to stay open", quit, ok)
	}
	if v := m.View(); !strings.Contains(v, "cannot jump there: its pane %3 is on another tmux server") ||
		!strings.Contains(cursorRow(v), "other tmux") {
		t.Errorf("no word of why:\n%s", v)
	}
	if slices.Contains(tm.captures(), "%3") {
		t.Errorf("captured %%3 of this server for an item of another one")
	}
}

func TestFilterNarrowsByAnyVisibleText(t *testing.T) {
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"infra", []string{"infra-1"}},           // project
		{"ops:0", []string{"infra-1"}},           // session:window
		{"dark-mode", []string{"web-1"}},         // summary
		{"STOPPED", []string{"web-1", "docs-1"}}, // reason, any case
		{"question", []string{"docs-1"}},         // detail
		{"bash main:1", []string{"api-1"}},       // every word
		{"%4", []string{"infra-1"}},              // pane
		{"zzz", nil},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			d, tm := fixture()
			keys := append([]string{"/"}, strings.Split(tc.filter, "")...)
			m, quit := press(t, newModel(t, d, tm), keys...)
			if quit || !m.filtering {
				t.Fatalf("quit %v, filtering %v while typing", quit, m.filtering)
			}
			if got := visibleIDs(m); !slices.Equal(got, tc.want) {
				t.Errorf("visible %v, want %v", got, tc.want)
			}
			v := m.View()
			if !strings.Contains(v, "/"+tc.filter) {
				t.Errorf("the filter line does not show %q:\n%s", tc.filter, v)
			}
			if tc.want == nil && !strings.Contains(v, `No item matches "zzz".`) {
				t.Errorf("no word of the empty match:\n%s", v)
			}
		})
	}
}

func TestFilterTakesDigitsAndLettersAsText(t *testing.T) {
	d, tm := fixture()
	m, quit := press(t, newModel(t, d, tm), "/", "3", "q", "j", "k", "s", "d", "?", "backspace")
	if quit || m.showHelp || m.filter.Value() != "3qjksd" {
		t.Fatalf("quit %v, help %v, filter %q: keys must be typed into the filter", quit, m.showHelp, m.filter.Value())
	}
	if _, skipped, dismissed := d.calls(); len(skipped)+len(dismissed) > 0 {
		t.Errorf("typing s and d into the filter skipped %v, dismissed %v", skipped, dismissed)
	}
}

func TestFilterThenJumpByNumber(t *testing.T) {
	d, tm := fixture()
	m, _ := press(t, newModel(t, d, tm), "/", "o", "p", "p", "e", "d", "enter")
	if m.filtering || m.filter.Value() != "opped" || !slices.Equal(visibleIDs(m), []string{"web-1", "docs-1"}) {
		t.Fatalf("after enter: filtering %v, filter %q, visible %v", m.filtering, m.filter.Value(), visibleIDs(m))
	}
	v := m.View()
	if !inOrder(v, "› 2", "web", "cooling down", "4~", "docs", "/opped  (esc clears)") {
		t.Errorf("the filtered rows do not keep their places in the queue:\n%s", v)
	}
	// 1 is hidden by the filter: nothing is chosen, and the popup says why.
	m, quit := press(t, m, "1")
	if _, ok := m.Choice(); quit || ok || selectedID(m) != "web-1" {
		t.Errorf("1, hidden by the filter: quit %v, choice %v, selected %s; want nothing chosen", quit, ok, selectedID(m))
	}
	if v := m.View(); !strings.Contains(v, "1 is hidden by the filter (esc clears it)") {
		t.Errorf("no word of why 1 did nothing:\n%s", v)
	}
	m, quit = press(t, m, "4")
	if it, ok := m.Choice(); !quit || !ok || it.SessionID != "docs-1" {
		t.Errorf("4 chose %v %q, want the row numbered 4, docs-1", ok, it.SessionID)
	}
}

func TestFilterArrowsMoveAndSelectionSurvives(t *testing.T) {
	d, tm := fixture()
	m, _ := press(t, newModel(t, d, tm), "j", "/", "s", "t", "o", "p")
	if got := selectedID(m); got != "web-1" {
		t.Errorf("selected %s after filtering, want web-1 still (it matches)", got)
	}
	m, _ = press(t, m, "down")
	if got := selectedID(m); got != "docs-1" || !m.filtering {
		t.Errorf("down while filtering: selected %s, filtering %v", got, m.filtering)
	}
	m, _ = press(t, m, "up")
	if got := selectedID(m); got != "web-1" {
		t.Errorf("up while filtering: selected %s", got)
	}
}

func TestEscClearsTheFilterBeforeClosing(t *testing.T) {
	d, tm := fixture()
	m := newModel(t, d, tm)

	// Esc while typing clears the filter and keeps the popup.
	m, quit := press(t, m, "/", "w", "e", "b", "esc")
	if quit || m.filtering || m.filter.Value() != "" || len(m.visible) != 4 {
		t.Fatalf("esc while typing: quit %v, filtering %v, filter %q, %d visible", quit, m.filtering, m.filter.Value(), len(m.visible))
	}
	// Esc with a kept filter clears it and keeps the popup.
	m, quit = press(t, m, "/", "w", "e", "b", "enter")
	if quit || len(m.visible) != 1 {
		t.Fatalf("enter: quit %v, %d visible", quit, len(m.visible))
	}
	m, quit = press(t, m, "esc")
	if quit || m.filter.Value() != "" || len(m.visible) != 4 {
		t.Fatalf("esc with a filter: quit %v, filter %q, %d visible", quit, m.filter.Value(), len(m.visible))
	}
	if strings.Contains(m.View(), "esc clears") {
		t.Errorf("the cleared filter is still shown")
	}
	// Then Esc closes.
	m, quit = press(t, m, "esc")
	if _, ok := m.Choice(); !quit || ok {
		t.Errorf("esc without a filter: quit %v, choice %v", quit, ok)
	}
}

func TestHelpToggles(t *testing.T) {
	d, tm := fixture()
	m := newModel(t, d, tm)
	m, _ = press(t, m, "?")
	v := m.View()
	for _, want := range []string{"↑/k   up", "↓/j   down", "enter jump", "1-9   jump to #", "s skip", "d dismiss",
		"/   filter", "?   help", "esc clear filter / close", "q   close"} {
		if !strings.Contains(v, want) {
			t.Errorf("the help view does not say %q", want)
		}
	}
	if strings.Contains(v, "dark-mode") {
		t.Errorf("the help view shows the list:\n%s", v)
	}
	m, quit := press(t, m, "j", "s", "?")
	if quit || strings.Contains(m.View(), "clear filter / close") || !strings.Contains(m.View(), "dark-mode") {
		t.Errorf("? again does not go back to the list:\n%s", m.View())
	}
	if _, skipped, _ := d.calls(); len(skipped) > 0 || selectedID(m) != "api-1" {
		t.Errorf("keys under the help acted on the list: skipped %v, selected %s", skipped, selectedID(m))
	}
	m, quit = press(t, m, "?", "esc")
	if quit || m.showHelp {
		t.Errorf("esc on the help: quit %v, help %v; want back to the list", quit, m.showHelp)
	}
}

func TestRefreshKeepsTheSelectionOnTheSameSession(t *testing.T) {
	d, tm := fixture()
	m, _ := press(t, newModel(t, d, tm), "j", "j") // infra-1
	n, _, _ := d.calls()
	// api-1 was answered; a new one got stuck.
	items := slices.Clone(d.items[1:])
	items = append(items[:2:2], client.Item{SessionID: "new-1", Pane: "%6", TmuxSocket: "/s", Reason: "stopped",
		Summary: "fresh", Since: clock, Ready: true}, items[2])
	d.set(items, nil)
	m, _ = send(t, m, tickMsg(clock))
	if after, _, _ := d.calls(); after != n+1 {
		t.Fatalf("a tick fetched the queue %d times, want once", after-n)
	}
	if got := visibleIDs(m); !slices.Equal(got, []string{"web-1", "infra-1", "new-1", "docs-1"}) {
		t.Fatalf("after refresh: %v", got)
	}
	if got := selectedID(m); got != "infra-1" || m.cursor != 1 {
		t.Errorf("selected %s at %d, want infra-1 (now row 1)", got, m.cursor)
	}
	// The selected session leaves: the selection stays on the same row.
	d.set([]client.Item{items[0], items[2], items[3]}, nil)
	m, _ = send(t, m, tickMsg(clock))
	if got := selectedID(m); got != "new-1" {
		t.Errorf("selected %s after infra-1 left, want new-1 (same row)", got)
	}
}

func TestTickDoesNotStackFetches(t *testing.T) {
	d, tm := fixture()
	m := newModel(t, d, tm)
	next, cmd := m.Update(tickMsg(clock)) // a fetch starts, and is not done yet
	m = next.(Model)
	if cmd == nil || !m.fetching {
		t.Fatal("a tick did not start a fetch")
	}
	next, cmd = m.Update(tickMsg(clock))
	if msg := cmd(); msg == nil {
		t.Fatal("a tick during a fetch stopped the ticking")
	} else if _, ok := msg.(tea.BatchMsg); ok {
		t.Error("a tick during a fetch started another fetch")
	}
	_ = next
}

func TestSkipCallsTheDaemonWithTheSelectedSession(t *testing.T) {
	d, tm := fixture()
	m, quit := press(t, newModel(t, d, tm), "j", "s")
	if _, skipped, _ := d.calls(); !slices.Equal(skipped, []string{"web-1"}) || quit {
		t.Fatalf("skipped %v (quit %v), want [web-1]", skipped, quit)
	}
	if got := visibleIDs(m); !slices.Equal(got, []string{"api-1", "infra-1", "docs-1", "web-1"}) {
		t.Errorf("after the skip the list is %v, want web-1 cooling at the tail", got)
	}
	if m.rows[m.visible[3]].item.Ready {
		t.Errorf("web-1 is not shown cooling")
	}
	if got := selectedID(m); got != "infra-1" {
		t.Errorf("selected %s after the skip, want the row below, infra-1", got)
	}
	if v := m.View(); !inOrder(v, "⚠ 2 stuck · 2 cooling", "› 2", "infra", "cooling down after a skip", "3~", "docs", "4~", "web") {
		t.Errorf("the view does not show the skip:\n%s", v)
	}
}

func TestDismissCallsTheDaemonWithTheSelectedSession(t *testing.T) {
	d, tm := fixture()
	m, quit := press(t, newModel(t, d, tm), "d")
	if _, _, dismissed := d.calls(); !slices.Equal(dismissed, []string{"api-1"}) || quit {
		t.Fatalf("dismissed %v (quit %v), want [api-1]", dismissed, quit)
	}
	if got := visibleIDs(m); !slices.Equal(got, []string{"web-1", "infra-1", "docs-1"}) {
		t.Errorf("after the dismiss the list is %v", got)
	}
	if got := selectedID(m); got != "web-1" {
		t.Errorf("selected %s, want web-1", got)
	}
	// The last row: the selection goes up.
	m, _ = press(t, m, "j", "j", "d")
	if _, _, dismissed := d.calls(); !slices.Equal(dismissed, []string{"api-1", "docs-1"}) {
		t.Fatalf("dismissed %v", dismissed)
	}
	if got := selectedID(m); got != "infra-1" {
		t.Errorf("selected %s after dismissing the last row, want infra-1", got)
	}
}

func TestFailedSkipIsShown(t *testing.T) {
	d, tm := fixture()
	d.actErr = fmt.Errorf("POST /v1/skip: 404 Not Found: session not queued")
	m, _ := press(t, newModel(t, d, tm), "s")
	if v := m.View(); !strings.Contains(v, "skip failed: POST /v1/skip: 404 Not Found: session not queued") {
		t.Errorf("no word of the failed skip:\n%s", v)
	}
}

func TestEmptyQueue(t *testing.T) {
	d, tm := fixture()
	d.items = nil
	m := newModel(t, d, tm)
	v := m.View()
	if !strings.Contains(v, "Nothing stuck — all agents are working.") || strings.Contains(v, "stuck ·") {
		t.Errorf("empty view:\n%s", v)
	}
	for _, k := range []string{"enter", "1", "s", "d", "j"} {
		if m2, quit := press(t, m, k); quit {
			t.Errorf("%s on an empty queue closed the popup", k)
		} else if _, ok := m2.Choice(); ok {
			t.Errorf("%s on an empty queue chose something", k)
		}
	}
	if _, quit := press(t, m, "q"); !quit {
		t.Errorf("q does not close the empty popup")
	}
}

func TestDaemonDown(t *testing.T) {
	d, tm := fixture()
	items := d.items
	d.set(nil, fmt.Errorf("%w (http://127.0.0.1:4000): connection refused", client.ErrDown))
	m := newModel(t, d, tm)
	if v := m.View(); !strings.Contains(v, "the daemon is not running — start it with: trailboss start") ||
		strings.Contains(v, "connection refused") {
		t.Errorf("daemon-down view:\n%s", v)
	}
	// Another failure is said as it is.
	d.set(nil, fmt.Errorf("GET /v1/queue: 500 Internal Server Error: boom"))
	m, _ = send(t, m, tickMsg(clock))
	if v := m.View(); !strings.Contains(v, "trailboss: GET /v1/queue: 500 Internal Server Error: boom") {
		t.Errorf("error view:\n%s", v)
	}
	// The daemon comes back: the next refresh shows the queue.
	d.set(items, nil)
	m, _ = send(t, m, tickMsg(clock))
	if v := m.View(); !strings.Contains(v, "⚠ 3 stuck") {
		t.Errorf("after the daemon came back:\n%s", v)
	}
}

func TestLoadsInItsFirstCommandWithoutASnapshot(t *testing.T) {
	d, tm := fixture()
	m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: asciiStyles(), Width: 100, Height: 30,
		Now: func() time.Time { return clock }, Refresh: time.Millisecond})
	if v := m.View(); !strings.Contains(v, "Loading the queue…") {
		t.Errorf("before the first fetch:\n%s", v)
	}
	m, _ = pump(t, m, m.Init())
	if got := visibleIDs(m); len(got) != 4 || !slices.Equal(tm.captures(), []string{"%2"}) {
		t.Errorf("after Init: visible %v, captures %v", got, tm.captures())
	}
}

func TestLongListScrollsWithTheCursor(t *testing.T) {
	d, tm := manyItems(500)
	m := newModel(t, d, tm)
	keys := make([]string, 120)
	for i := range keys {
		keys[i] = "j"
	}
	m, _ = press(t, m, keys...)
	v := m.View()
	if !strings.HasPrefix(cursorRow(v), "› 121 ") {
		t.Errorf("the cursor row is not drawn after 120 downs: %q\n%s", cursorRow(v), v)
	}
	if got := strings.Count(v, "\n") + 1; got != 30 {
		t.Errorf("the view is %d lines, want 30", got)
	}
	m, _ = press(t, m, "k")
	if !strings.HasPrefix(cursorRow(m.View()), "› 120 ") {
		t.Errorf("up does not move the drawn cursor: %q", cursorRow(m.View()))
	}
}

func TestWindowResize(t *testing.T) {
	d, tm := fixture()
	m := newModel(t, d, tm)
	next, _ := m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
	v := next.(Model).View()
	lines := strings.Split(v, "\n")
	if len(lines) != 12 {
		t.Errorf("%d lines at height 12:\n%s", len(lines), v)
	}
	for _, l := range lines {
		if w := len([]rune(l)); w > 60 {
			t.Errorf("line wider than 60 (%d): %q", w, l)
		}
	}
}

func TestListKeysDoNothingWhileTheDaemonIsDown(t *testing.T) {
	d, tm := fixture()
	m, _ := press(t, newModel(t, d, tm), "j")
	d.set(nil, fmt.Errorf("%w: connection refused", client.ErrDown))
	m, _ = send(t, m, tickMsg(clock))
	if v := m.View(); !strings.Contains(v, "the daemon is not running") || strings.Contains(v, "dark-mode") {
		t.Fatalf("daemon-down view:\n%s", v)
	}
	// The list it had is hidden: its keys do nothing.
	for _, k := range []string{"enter", "1", "s", "d"} {
		if m2, quit := press(t, m, k); quit {
			t.Errorf("%s under the error view closed the popup", k)
		} else if _, ok := m2.Choice(); ok {
			t.Errorf("%s under the error view chose a hidden item", k)
		}
	}
	if _, skipped, dismissed := d.calls(); len(skipped)+len(dismissed) > 0 {
		t.Errorf("keys under the error view skipped %v, dismissed %v", skipped, dismissed)
	}
	if _, quit := press(t, m, "esc"); !quit {
		t.Errorf("esc does not close the error view")
	}
}
