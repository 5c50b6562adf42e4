package popup

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func TestFitColumns(t *testing.T) {
	// The fixture's widths: "cooling 42s" and "~42s", "stopped/question" and "permission",
	// "main:1", "infra (3f9c2a1)", a 111-cell summary.
	fixture := widths{num: 2, age: 11, ageShort: 4, reason: 16, kind: 10, where: 6, project: 15, summary: 111}
	noCooling := fixture
	noCooling.num, noCooling.age, noCooling.ageShort = 1, 3, 3
	longNames := widths{num: 2, age: 11, ageShort: 4, reason: 30, kind: 25, where: 40, project: 60, summary: 200}
	for _, tc := range []struct {
		name  string
		w     widths
		width int
		want  columns
	}{
		{"unknown width: all of it", fixture, 0,
			columns{num: 2, age: 11, reason: 16, where: 6, project: 15, summary: 111}},
		{"wide: full widths, the summary takes the rest", fixture, 200,
			columns{num: 2, age: 11, reason: 16, where: 6, project: 15, summary: 138}},
		{"caps hold at any width", longNames, 300,
			columns{num: 2, age: 11, reason: maxReason, where: maxWhere, project: maxProject, summary: 209}},
		{"a short summary needs no more than itself", widths{num: 1, age: 3, reason: 7, kind: 7, where: 6, project: 10, summary: 12}, 51,
			columns{num: 1, age: 3, reason: 7, where: 6, project: 10, summary: 12}},
		{"a short summary: one cell less and the columns shrink for it", widths{num: 1, age: 3, reason: 7, kind: 7, where: 6, project: 12, summary: 12}, 52,
			columns{num: 1, age: 3, reason: 7, where: 6, project: 11, summary: 12}},
		{"80 without cooling rows: only the project shrinks", noCooling, 80,
			columns{num: 1, age: 3, reason: 16, where: 6, project: 11, summary: 31}},
		{"80 with a cooling row: detail and branches go, 'cooling 42s' stays", fixture, 80,
			columns{num: 2, age: 11, reason: 10, where: 6, project: 8, summary: 31, kindOnly: true}},
		{"70: the cooling time goes short, WHERE is dropped", fixture, 70,
			columns{num: 2, age: 4, reason: 10, project: 7, summary: 37, kindOnly: true, coolShort: true}},
		{"60: PROJECT is dropped", fixture, 60,
			columns{num: 2, age: 4, reason: 10, summary: 36, kindOnly: true, coolShort: true}},
		{"45: REASON is dropped", fixture, 45,
			columns{num: 2, age: 4, summary: 33, kindOnly: true, coolShort: true}},
		{"30: AGE is dropped, the summary gets what is left", fixture, 30,
			columns{num: 2, summary: 24, kindOnly: true, coolShort: true}},
		{"long names at 80: each shrinks, the cooling time goes short, then WHERE goes", longNames, 80,
			columns{num: 2, age: 4, reason: 22, project: 7, summary: 35, kindOnly: true, coolShort: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fitColumns(tc.w, tc.width)
			if got != tc.want {
				t.Errorf("fitColumns(%+v, %d)\n got %+v\nwant %+v", tc.w, tc.width, got, tc.want)
			}
			if tc.width > 0 && got.room(tc.width) != got.summary {
				t.Errorf("the columns take %d cells of %d", tc.width-got.summary, tc.width)
			}
		})
	}
}

func TestWhereText(t *testing.T) {
	place := row{where: "a-long-session:12", session: "a-long-session", window: ":12"}
	place.whereW = len(place.where)
	gone := row{where: "other tmux"}
	gone.whereW = len(gone.where)
	for _, tc := range []struct {
		r    row
		n    int
		want string
	}{
		{place, 17, "a-long-session:12"},
		{place, 30, "a-long-session:12"},
		{place, 10, "a-long…:12"}, // the session is cut, the window kept
		{place, 5, "a…:12"},
		{place, 4, "a-l…"}, // no room for two cells of session: cut as a whole
		{gone, 10, "other tmux"},
		{gone, 6, "other…"},
	} {
		if got := whereText(tc.r, tc.n); got != tc.want {
			t.Errorf("whereText(%q, %d) = %q, want %q", tc.r.where, tc.n, got, tc.want)
		}
	}
}

func TestProjectParts(t *testing.T) {
	web := row{project: "web", branch: "dark-mode"}
	web.projectW = len(web.projectText())
	docs := row{project: "documentation"}
	docs.projectW = len(docs.projectText())
	for _, tc := range []struct {
		r            row
		n            int
		name, branch string
	}{
		{web, 15, "web", " (dark-mode)"},
		{web, 40, "web", " (dark-mode)"},
		{web, 10, "web", " (dar…)"}, // the branch is cut first
		{web, 9, "web", " (da…)"},
		{web, 8, "web", ""}, // then dropped rather than shown as one letter
		{web, 2, "w…", ""},
		{docs, 13, "documentation", ""},
		{docs, 8, "documen…", ""},
	} {
		name, branch := projectParts(tc.r, tc.n)
		if name != tc.name || branch != tc.branch {
			t.Errorf("projectParts(%q, %d) = %q, %q; want %q, %q", tc.r.projectText(), tc.n, name, branch, tc.name, tc.branch)
		}
		if w := ansi.StringWidth(name + branch); w > tc.n {
			t.Errorf("projectParts(%q, %d) is %d cells", tc.r.projectText(), tc.n, w)
		}
	}
}

// At 80×24 every row shows the first 30 characters of its summary, however long the other
// columns' texts are, and the column heads stay over their columns.
func TestEveryRowShows30CharactersOfItsSummaryAt80x24(t *testing.T) {
	long := strings.Repeat("x", 50)
	for _, tc := range []struct {
		name string
		edit func(d *stubDaemon, tm *stubTmux)
	}{
		{"the fixture", func(d *stubDaemon, tm *stubTmux) {}},
		{"long names everywhere", func(d *stubDaemon, tm *stubTmux) {
			for i := range d.items {
				d.items[i].Detail = "mcp__" + long
				d.items[i].Cwd = "/src/" + long
				d.items[i].Summary = "What the agent wants to know is " + long
				tm.panes[i].SessionName = "session-" + long
			}
		}},
		{"wide characters", func(d *stubDaemon, tm *stubTmux) {
			d.items[0].Summary = "日本語の要約はここにあります。日本語の要約はここにあります。日本語の要約"
			d.items[1].Cwd = "/src/プロジェクト"
		}},
		{"only cooling items", func(d *stubDaemon, tm *stubTmux) {
			for i := range d.items {
				d.items[i].Ready = false
			}
		}},
		{"more than 9 items", func(d *stubDaemon, tm *stubTmux) {
			for range 3 {
				d.items = append(d.items, d.items...)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, tm := fixture()
			tc.edit(d, tm)
			s := Load(context.Background(), d, tm)
			m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: asciiStyles(), Width: 80, Height: 24,
				First: &s, Now: func() time.Time { return clock }})
			v := m.View()
			checkFrame(t, v, 80, 24)
			lines := strings.Split(v, "\n")
			shown := 0
			for _, r := range m.rows {
				first30 := ansi.Truncate(r.summary, 30, "") // 30 cells: fewer characters when wide
				for _, l := range lines {
					l = strings.TrimPrefix(strings.TrimPrefix(l, "› "), "  ")
					if strings.HasPrefix(l, r.num+" ") && strings.Contains(l, first30) {
						shown++
						break
					}
				}
			}
			if want := min(len(m.rows), m.layout().list-1); shown < want {
				t.Errorf("%d rows show 30 characters of their summary, want %d:\n%s", shown, want, v)
			}
			i := strings.Index(lines[1], headSummary) // the heads are ASCII: bytes are cells
			if first := rowLine(lines, m.rows[0].num); i < 0 || !strings.HasPrefix(ansi.Cut(first, i, 80), ansi.Truncate(m.rows[0].summary, 4, "")) {
				t.Errorf("the SUMMARY head is not over the summaries:\n%s", v)
			}
		})
	}
}

func TestFilterMatchesSessionAndWindowNames(t *testing.T) {
	d, st := fixture()
	st.panes[0].SessionName = "frontend"
	for i, name := range []string{"tests", "ui-polish", "deploy", "docs"} {
		st.panes[i].WindowID, st.panes[i].WindowName = "@"+string(rune('1'+i)), name
	}
	tm := st
	for _, tc := range []struct {
		filter string
		want   string
	}{
		{"frontend", "api-1"}, // a session name
		{"FRONT", "api-1"},    // any case, a part of it
		{"ops", "infra-1"},    // a session name
		{"deploy", "infra-1"}, // a window name
		{"polish", "web-1"},   // a part of a window name
		{"ops deploy", "infra-1"},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			s := Load(context.Background(), d, tm)
			m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: asciiStyles(), Width: 100, Height: 30,
				First: &s, Now: func() time.Time { return clock }})
			m, _ = press(t, m, append([]string{"/"}, strings.Split(tc.filter, "")...)...)
			if got := visibleIDs(m); len(got) != 1 || got[0] != tc.want {
				t.Errorf("/%s shows %v, want [%s]", tc.filter, got, tc.want)
			}
		})
	}
}

// rowLine is the line of lines that draws the row numbered num.
func rowLine(lines []string, num string) string {
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimPrefix(strings.TrimPrefix(l, "› "), "  "), num+" ") {
			return l
		}
	}
	return ""
}

func equalIDs(got []string, want ...string) bool {
	return strings.Join(got, ",") == strings.Join(want, ",")
}

// The numbers are places in the queue: a filter hides rows but renumbers none, and a digit
// means the row with that number.
func TestFilterKeepsQueuePositions(t *testing.T) {
	d, tm := fixture()
	m, _ := press(t, newModel(t, d, tm), "/", "t", "e", "r", "r", "a")
	if !equalIDs(visibleIDs(m), "infra-1") {
		t.Fatalf("visible %v, want infra-1", visibleIDs(m))
	}
	if row := cursorRow(m.View()); !strings.HasPrefix(row, "› 3 ") {
		t.Errorf("the only match, third in the queue, is drawn as %q; want number 3", row)
	}
	m, _ = press(t, m, "enter") // keep the filter: digits jump again
	for _, k := range []string{"1", "2", "4", "9"} {
		m2, quit := press(t, m, k)
		if _, ok := m2.Choice(); quit || ok {
			t.Errorf("%s, not shown, chose %v (quit %v)", k, ok, quit)
		}
	}
	m, quit := press(t, m, "3")
	if it, ok := m.Choice(); !quit || !ok || it.SessionID != "infra-1" {
		t.Errorf("3 chose %v %q, want infra-1", ok, it.SessionID)
	}
}

// While filtering, whatever the filter leaves and however small the popup, the frame is
// the popup's height, so the title stays at the top.
func TestTitleStaysWhileFiltering(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {100, 30}, {60, 8}, {60, 5}, {40, 3}} {
		for _, filter := range []string{"", "stop", "zzz"} {
			d, tm := fixture()
			m := newModel(t, d, tm)
			next, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m, _ = press(t, next.(Model), append([]string{"/"}, strings.Split(filter, "")...)...)
			v := m.View()
			lines := strings.Split(v, "\n")
			if len(lines) > size[1] || !strings.HasPrefix(lines[0], "Trail Boss") {
				t.Errorf("%dx%d /%s: %d lines, first %q:\n%s", size[0], size[1], filter, len(lines), lines[0], v)
			}
			if size[1] >= 4 && !strings.Contains(v, "/"+filter) {
				t.Errorf("%dx%d /%s: the filter line is not shown:\n%s", size[0], size[1], filter, v)
			}
			// Accepted with enter, the filter is still shown and the title too.
			m, _ = press(t, m, "enter")
			if lines := strings.Split(m.View(), "\n"); len(lines) > size[1] || !strings.HasPrefix(lines[0], "Trail Boss") {
				t.Errorf("%dx%d /%s accepted: %d lines, first %q", size[0], size[1], filter, len(lines), lines[0])
			}
		}
	}
}

func TestCoolingOnlyIsListedAndNotCountedAsStuck(t *testing.T) {
	d, tm := fixture()
	until := clock.Add(90 * time.Second)
	for i := range d.items[:2] {
		d.items[i].Ready, d.items[i].CooldownUntil = false, &until
	}
	d.items = d.items[:2]
	m := newModel(t, d, tm)
	v := m.View()
	if !strings.HasPrefix(v, "Trail Boss  0 stuck · 2 cooling\n") || strings.Contains(v, "⚠") {
		t.Errorf("the header of a queue of cooling items:\n%s", v)
	}
	if !inOrder(v, "cooling down after a skip", "› 1~", "cooling 1m", "go test", "2~", "cooling 1m", "dark-mode toggle") {
		t.Errorf("the cooling items are not listed with their time left:\n%s", v)
	}
	// A cooldown that ran out before the daemon said the item is ready again.
	past := clock.Add(-time.Second)
	d.items[0].CooldownUntil = &past
	m = newModel(t, d, tm)
	if !regexp.MustCompile(`^› 1~ +cooling  permission`).MatchString(cursorRow(m.View())) {
		t.Errorf("an expired cooldown: %q", cursorRow(m.View()))
	}
}

func TestHeaderCountsReadyAndCoolingApart(t *testing.T) {
	for _, tc := range []struct {
		ready, cooling int
		want           string
	}{
		{1, 0, "Trail Boss  ⚠ 1 stuck\n"},
		{3, 1, "Trail Boss  ⚠ 3 stuck · 1 cooling\n"},
		{1, 3, "Trail Boss  ⚠ 1 stuck · 3 cooling\n"},
		{0, 4, "Trail Boss  0 stuck · 4 cooling\n"},
	} {
		d, tm := fixture()
		for i := range d.items {
			d.items[i].Ready = i < tc.ready
		}
		d.items = d.items[:tc.ready+tc.cooling]
		if v := newModel(t, d, tm).View(); !strings.HasPrefix(v, tc.want) {
			t.Errorf("%d ready, %d cooling: header %q, want %q", tc.ready, tc.cooling, strings.SplitN(v, "\n", 2)[0], tc.want)
		}
	}
}

// A cooling row is drawn dim as a whole (faint, none of the ready rows' colours); a ready
// one in its colours.
func TestCoolingRowsAreDimmed(t *testing.T) {
	d, tm := fixture()
	s := Load(context.Background(), d, tm)
	m := New(Options{Daemon: d, Tmux: tm, Socket: "/s", Styles: ansiStyles(), Width: 100, Height: 30,
		First: &s, Now: func() time.Time { return clock }})
	var ready, cooling string
	for _, l := range strings.Split(m.View(), "\n") {
		switch plain := ansi.Strip(l); {
		case strings.HasPrefix(plain, "  3 "):
			ready = l
		case strings.HasPrefix(plain, "  4~"):
			cooling = l
		}
	}
	const faint, colour = "\x1b[2m", "\x1b[3" // SGR 2, and the 16 colours' foregrounds 30–37
	body := strings.TrimPrefix(cooling, "  ")
	if !strings.HasPrefix(body, faint) || strings.Contains(body, colour) || !strings.Contains(body, "cooling 42s") {
		t.Errorf("the cooling row is not dim as a whole: %q", cooling)
	}
	if strings.Contains(ready, faint+"3 ") || !strings.Contains(ready, colour) {
		t.Errorf("the ready row is not in its colours: %q", ready)
	}
}
