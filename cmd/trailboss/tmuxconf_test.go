package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/hooks"
)

func TestTmuxLinesDefaults(t *testing.T) {
	got := tmuxLines(tmuxSettings{bin: "trailboss"})
	want := `# Trail Boss: keys and status segment (printed by ` + "`trailboss tmux-conf`" + `).
bind-key Tab if-shell -F "#{@trailboss-focus}" "run-shell -b \"trailboss focus --next --client #{q:client_name} --socket #{q:socket_path}\"" "if-shell -F \"#{?#{==:#{pane_id},#{@trailboss_head}},#{S:#{W:#{P:#{?#{==:#{pane_id},#{@trailboss_next}},1,}}}},#{S:#{W:#{P:#{?#{==:#{pane_id},#{@trailboss_head}},1,}}}}}\" \"run-shell -C \\\"switch-client -t #{?#{==:#{pane_id},#{@trailboss_head}},#{@trailboss_next},#{@trailboss_head}} ; select-window -t #{?#{==:#{pane_id},#{@trailboss_head}},#{@trailboss_next},#{@trailboss_head}} ; select-pane -t #{?#{==:#{pane_id},#{@trailboss_head}},#{@trailboss_next},#{@trailboss_head}}\\\"\" \"run-shell -b \\\"trailboss jump-next --client #{q:client_name} --socket #{q:socket_path} --pane #{q:pane_id}\\\"\""
bind-key g run-shell -b "tmux -S #{q:socket_path} display-popup -c #{q:client_name} -E -w 90% -h 80% trailboss popup --client #{q:client_name} --socket #{q:socket_path}"
bind-key S run-shell -b "trailboss skip --client #{q:client_name} --socket #{q:socket_path} --pane #{q:pane_id}"
bind-key F run-shell -b "trailboss focus --client #{q:client_name} --socket #{q:socket_path}"
if-shell -F "#{||:#{==:#{@trailboss-status},off},#{||:#{m:*@trailboss_status*,#{status-left}},#{m:*@trailboss_status*,#{status-right}}}}" "" "set -ag status-right ' #{@trailboss_status}'"
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTmuxLinesKeys(t *testing.T) {
	cases := []struct {
		name string
		keys map[string]string
		want []string // bind-key lines' first three words, in order
	}{
		// The next key is an if-shell: in a focus view it moves the view on.
		{"defaults", nil, []string{"bind-key Tab if-shell", "bind-key g run-shell", "bind-key S run-shell", "bind-key F run-shell"}},
		{"overridden", map[string]string{"@trailboss-next-key": "C-t", "@trailboss-popup-key": "M-q", "@trailboss-skip-key": "F5", "@trailboss-focus-key": "M-f"},
			[]string{"bind-key C-t if-shell", "bind-key M-q run-shell", "bind-key F5 run-shell", "bind-key M-f run-shell"}},
		{"none turns one off", map[string]string{"@trailboss-popup-key": "none"},
			[]string{"bind-key Tab if-shell", "bind-key S run-shell", "bind-key F run-shell"}},
		{"all none", map[string]string{"@trailboss-next-key": "none", "@trailboss-popup-key": "none", "@trailboss-skip-key": "none", "@trailboss-focus-key": "none"}, nil},
		{"empty means the default", map[string]string{"@trailboss-next-key": ""},
			[]string{"bind-key Tab if-shell", "bind-key g run-shell", "bind-key S run-shell", "bind-key F run-shell"}},
		{"a key tmux reads specially is quoted", map[string]string{"@trailboss-next-key": "#", "@trailboss-skip-key": `"`},
			[]string{`bind-key "#" if-shell`, "bind-key g run-shell", `bind-key "\"" run-shell`, "bind-key F run-shell"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for line := range strings.SplitSeq(tmuxLines(tmuxSettings{bin: "tb", keys: c.keys, statusOff: true}), "\n") {
				if strings.HasPrefix(line, "bind-key") {
					f := strings.Fields(line)
					got = append(got, strings.Join(f[:3], " "))
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestTmuxLinesVerbs checks that each key runs its own verb, whatever key it is on.
func TestTmuxLinesVerbs(t *testing.T) {
	out := tmuxLines(tmuxSettings{bin: "tb", keys: map[string]string{"@trailboss-next-key": "n", "@trailboss-skip-key": "Tab"}, statusOff: true})
	for _, want := range []string{
		`bind-key n if-shell -F "#{@trailboss-focus}" "run-shell -b \"tb focus --next --client`,
		`\"run-shell -b \\\"tb jump-next --client`,
		`bind-key Tab run-shell -b "tb skip --client`,
		`bind-key F run-shell -b "tb focus --client`,
		`bind-key g run-shell -b "tmux -S #{q:socket_path} display-popup -c #{q:client_name} -E -w 90% -h 80% tb popup --client`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestTmuxLinesStatus(t *testing.T) {
	appended := `set -ag status-right " #{@trailboss_status}"`
	cases := []struct {
		name string
		s    tmuxSettings
		want string // the status line, "" for none
	}{
		{"not placed: appended", tmuxSettings{statusKnown: true, statusLeft: "[#S]", statusRight: "%H:%M"}, appended},
		{"empty status-right: appended", tmuxSettings{statusKnown: true}, appended},
		{"already in status-right: untouched", tmuxSettings{statusKnown: true, statusRight: "#{@trailboss_status} | %H:%M"}, ""},
		{"already appended by us: untouched", tmuxSettings{statusKnown: true, statusRight: "%H:%M #{@trailboss_status}"}, ""},
		{"in status-left: untouched", tmuxSettings{statusKnown: true, statusLeft: "#{?@trailboss_status,#{@trailboss_status} ,}[#S]"}, ""},
		{"opted out", tmuxSettings{statusOff: true, statusKnown: true}, ""},
		{"opted out, status unknown", tmuxSettings{statusOff: true}, ""},
		{"unknown: tmux decides", tmuxSettings{}, `if-shell -F "#{||:#{==:#{@trailboss-status},off},#{||:#{m:*@trailboss_status*,#{status-left}},#{m:*@trailboss_status*,#{status-right}}}}" "" "set -ag status-right ' #{@trailboss_status}'"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.bin = "tb"
			var got []string
			for line := range strings.SplitSeq(tmuxLines(c.s), "\n") {
				if strings.Contains(line, "status-right") {
					got = append(got, line)
				}
			}
			if strings.Join(got, "\n") != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if strings.Contains(tmuxLines(c.s), "status-left ") && !strings.Contains(tmuxLines(c.s), "#{status-left}") {
				t.Errorf("status-left touched")
			}
		})
	}
}

func TestTmuxLinesQuoteTheBinary(t *testing.T) {
	out := tmuxLines(tmuxSettings{bin: hooks.ShellWord("/home/a b/$x/trailboss"), statusOff: true})
	// tmux unquotes "…\$…" to $ (at each of the jump key's three levels), sh then reads
	// '…' literally.
	want := `\"run-shell -b \\\"'/home/a b/\\\\\\\$x/trailboss' jump-next`
	if !strings.Contains(out, want) {
		t.Errorf("missing %q in:\n%s", want, out)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"trailboss":                 "trailboss",
		"/usr/local/bin/trailboss":  "/usr/local/bin/trailboss",
		"/home/a b/trailboss":       "'/home/a b/trailboss'",
		"/it's/trailboss":           `'/it'\''s/trailboss'`,
		"/x/$HOME/trailboss":        "'/x/$HOME/trailboss'",
		"":                          "''",
		"/opt/tb-1.2_3+x/trailboss": "/opt/tb-1.2_3+x/trailboss",
	} {
		if got := hooks.ShellWord(in); got != want {
			t.Errorf("hooks.ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestBinWord(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "bin", "trailboss")
	other := filepath.Join(dir, "other", "trailboss")
	link := filepath.Join(dir, "link", "trailboss")
	for _, p := range []string{self, other} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	found := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	notFound := func(string) (string, error) { return "", errors.New("not found") }

	if w, why := binWord("trailboss", self, "this binary", found(self)); w != "trailboss" || !strings.Contains(why, "is this binary") {
		t.Errorf("on PATH itself: %s (%s)", w, why)
	}
	if w, _ := binWord("trailboss", self, "this binary", found(link)); w != "trailboss" {
		t.Errorf("a symlink to it on PATH: %s", w)
	}
	if w, why := binWord("trailboss", self, "this binary", found(other)); w != self || !strings.Contains(why, other) {
		t.Errorf("another on PATH: %s (%s)", w, why)
	}
	if w, why := binWord("trailboss", self, "this binary", notFound); w != self || !strings.Contains(why, "no trailboss on your PATH") {
		t.Errorf("none on PATH: %s (%s)", w, why)
	}
}

func TestDemoTmuxConf(t *testing.T) {
	out := demoTmuxConf("/tmp/x/trailboss")
	for _, want := range []string{
		`set -g status-right ""`,
		`"run-shell -C \\\"switch-client -t #{?`,
		`"run-shell -b \\\"/tmp/x/trailboss jump-next`,
		`bind-key g run-shell -b "tmux -S`,
		`bind-key S run-shell -b "/tmp/x/trailboss skip`,
		`set -ag status-right " #{@trailboss_status}"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Index(out, `set -g status-right ""`) > strings.Index(out, "set -ag status-right") {
		t.Error("the segment is appended before status-right is reset")
	}
}

// TestHotBinBeside: the hot binary is found beside the path trailboss was run by, or beside
// the file a link to trailboss points at; not when it is missing or cannot be run.
func TestHotBinBeside(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "opt", "trailboss")
	link := filepath.Join(dir, "bin", "trailboss")
	for _, d := range []string{filepath.Dir(real), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(real, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	// The test binary's own folder holds no trailboss-hot.
	if got := hotBinBeside(real); got != "" {
		t.Fatalf("none there: got %q", got)
	}
	hot := filepath.Join(filepath.Dir(real), hotBinName)
	if err := os.WriteFile(hot, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := hotBinBeside(real); got != "" {
		t.Errorf("not executable: got %q, want none", got)
	}
	if err := os.Chmod(hot, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := hotBinBeside(real); got != hot {
		t.Errorf("beside it: got %q, want %q", got, hot)
	}
	if got := hotBinBeside(link); got != hot {
		t.Errorf("beside the link's target: got %q, want %q", got, hot)
	}
	w, why := binWord(hotBinName, hot, "the one beside this binary", func(string) (string, error) { return "", errors.New("not found") })
	if w != hot || why != "no trailboss-hot on your PATH, so the one beside this binary's absolute path" {
		t.Errorf("not on PATH: %s (%s)", w, why)
	}
}

// TestTmuxLinesHot: jump-next and skip run the hot binary; the popup and nothing else
// stays with trailboss.
func TestTmuxLinesHot(t *testing.T) {
	out := tmuxLines(tmuxSettings{bin: "trailboss", hot: "/x/trailboss-hot", statusOff: true})
	for _, want := range []string{
		`\"run-shell -b \\\"/x/trailboss-hot jump-next --client`,
		`"run-shell -b \"trailboss focus --next --client`,
		`bind-key S run-shell -b "/x/trailboss-hot skip --client`,
		`-E -w 90% -h 80% trailboss popup --client`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}
