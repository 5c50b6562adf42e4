package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/settings/installed")

const cmd = "trailboss emit"

func allEventNames() []string {
	var names []string
	for _, ev := range Events() {
		names = append(names, ev.Name)
	}
	return names
}

// TestInstallRealSettings installs into settings files shaped as people have them and checks
// the result against a golden file (read it: it shows the layout kept), that installing
// again changes nothing, that every event is hooked, and that Uninstall gives back the
// original bytes.
func TestInstallRealSettings(t *testing.T) {
	cases := []struct {
		file  string
		exact bool // Uninstall(Install(x)) == x byte for byte (else: the same JSON)
	}{
		{"claude-written.json", true},
		{"crlf-four-spaces.json", true},
		{"tabs.json", true},
		{"readme-style.json", true},
		{"minified.json", true},
		{"odd-indent.json", true},
		{"empty-object.json", false}, // "{  }" comes back as "{}"
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("testdata", "settings", c.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Install(orig, cmd)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "settings", "installed", c.file)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Install differs from %s (go test -update to see):\n%s", golden, got)
			}
			if !json.Valid(got) {
				t.Fatalf("Install wrote invalid JSON:\n%s", got)
			}
			if ev := Installed(got, cmd); !containsAll(ev, allEventNames()) {
				t.Errorf("Installed = %v, want every event", ev)
			}
			keepsOthers(t, orig, got)
			if bytes.Contains(orig, []byte("\r\n")) && bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
				t.Errorf("a CRLF file got LF-only lines:\n%q", got)
			}

			again, err := Install(got, cmd)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("second Install changed the file (err %v):\n%s", err, again)
			}
			back, err := Uninstall(got, cmd)
			if err != nil {
				t.Fatal(err)
			}
			if c.exact && !bytes.Equal(back, orig) {
				t.Errorf("Uninstall(Install(x)) != x byte for byte:\n got %q\nwant %q", back, orig)
			}
			if !SameJSON(back, orig) {
				t.Errorf("Uninstall(Install(x)) is not even the same JSON:\n%s", back)
			}
			if ev := Installed(back, cmd); len(ev) != 0 {
				t.Errorf("after Uninstall, Installed = %v", ev)
			}
		})
	}
}

// keepsOthers checks that every top-level key and every hook of the original is still there
// with the same value and in the same order.
func keepsOthers(t *testing.T, orig, got []byte) {
	t.Helper()
	var o, g map[string]any
	if err := json.Unmarshal(orig, &o); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	for k, v := range o {
		if k == "hooks" {
			continue
		}
		if !jsonEqual(v, g[k]) {
			t.Errorf("key %q changed: %v -> %v", k, v, g[k])
		}
	}
	oh, _ := o["hooks"].(map[string]any)
	gh, _ := g["hooks"].(map[string]any)
	for ev, groups := range oh {
		og := groups.([]any)
		gg := gh[ev].([]any)
		if len(gg) < len(og) || !jsonEqual(og, gg[:len(og)]) {
			t.Errorf("the user's %s hooks changed: %v -> %v", ev, og, gg)
		}
	}
	before, after := keyOrder(t, orig), keyOrder(t, got)
	if _, had := o["hooks"]; !had {
		before = strings.TrimPrefix(before+",hooks", ",")
	}
	if after != before {
		t.Errorf("top-level keys %s, want %s", after, before)
	}
}

func keyOrder(t *testing.T, b []byte) string {
	t.Helper()
	d, err := parseSettings(b)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range d.root.members {
		keys = append(keys, m.key)
	}
	return strings.Join(keys, ",")
}

func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

func TestInstallEmptyGivesAFreshFile(t *testing.T) {
	for _, in := range []string{"", " \n"} {
		got, err := Install([]byte(in), cmd)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(got) || !bytes.HasSuffix(got, []byte("}\n")) || !bytes.HasPrefix(got, []byte("{\n  \"hooks\": {\n    \"SessionStart\": [\n")) {
			t.Errorf("Install(%q) =\n%s", in, got)
		}
		if !slices.Equal(Installed(got, cmd), allEventNames()) {
			t.Errorf("Installed = %v", Installed(got, cmd))
		}
		back, _ := Uninstall(got, cmd)
		if !SameJSON(back, []byte("{}")) {
			t.Errorf("Uninstall of a fresh file = %s, want {}", back)
		}
	}
}

// TestInstallShape checks each entry as the README's block writes it.
func TestInstallShape(t *testing.T) {
	got, err := Install(nil, "'/my dir/trailboss' emit")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []map[string]any
		}
	}
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Hooks) != len(Events()) {
		t.Errorf("%d events, want %d", len(s.Hooks), len(Events()))
	}
	for _, ev := range Events() {
		groups := s.Hooks[ev.Name]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", ev.Name, groups)
		}
		g := groups[0]
		if (ev.Matcher == "") != (g.Matcher == nil) || (g.Matcher != nil && *g.Matcher != ev.Matcher) {
			t.Errorf("%s: matcher %v, want %q", ev.Name, g.Matcher, ev.Matcher)
		}
		want := map[string]any{"type": "command", "command": "'/my dir/trailboss' emit", "async": true}
		if ev.Name == "PermissionRequest" {
			// Claude Code waits for it and reads its decision, for up to an hour.
			want = map[string]any{"type": "command", "command": "'/my dir/trailboss' emit", "timeout": float64(3600)}
		}
		if !jsonEqual(g.Hooks[0], want) {
			t.Errorf("%s: hook %v, want %v", ev.Name, g.Hooks[0], want)
		}
	}
}

func TestInstallEdgeCases(t *testing.T) {
	cases := []struct {
		name, in string
		check    func(t *testing.T, out []byte)
	}{
		{"our hook already there under another matcher group is still added for ours",
			`{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"trailboss emit"}]}]}}`,
			func(t *testing.T, out []byte) {
				if !strings.Contains(string(out), `"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"trailboss emit"}]},{"matcher":"*",`) {
					t.Errorf("want our own * group after the Bash one:\n%s", out)
				}
			}},
		{"a README block put in by hand counts as installed: nothing added",
			readmeBlock("trailboss emit"),
			func(t *testing.T, out []byte) {
				if string(out) != readmeBlock("trailboss emit") {
					t.Errorf("changed:\n%s", out)
				}
			}},
		{"a block pointing at another trailboss binary is pointed at this one",
			readmeBlock("/opt/old/trailboss emit"),
			func(t *testing.T, out []byte) {
				if string(out) != readmeBlock("trailboss emit") {
					t.Errorf("got:\n%s", out)
				}
			}},
		{"the block from before holding is upgraded in place: PermissionRequest loses async, gains the timeout",
			oldReadmeBlock("trailboss emit"),
			func(t *testing.T, out []byte) {
				if string(out) != readmeBlock("trailboss emit") {
					t.Errorf("got:\n%s", out)
				}
			}},
		{"an old block at another binary: repointed and upgraded",
			oldReadmeBlock("/opt/old/trailboss emit"),
			func(t *testing.T, out []byte) {
				if string(out) != readmeBlock("trailboss emit") {
					t.Errorf("got:\n%s", out)
				}
			}},
		{"our PermissionRequest hook written across lines, async and another timeout: one hook, sync, 3600",
			"{\n  \"hooks\": {\n    \"PermissionRequest\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"timeout\": 60,\n            \"async\": true,\n            \"command\": \"trailboss emit\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
			func(t *testing.T, out []byte) {
				if !strings.Contains(string(out), "\"hooks\": [\n          {\n            \"type\": \"command\",\n            \"timeout\": 3600,\n            \"command\": \"trailboss emit\"\n          }\n        ]") {
					t.Errorf("got:\n%s", out)
				}
				if n := strings.Count(string(out), `"trailboss emit"`); n != len(Events()) {
					t.Errorf("%d hooks of ours, want one per event:\n%s", n, out)
				}
			}},
		{"the user's own PermissionRequest hook keeps its async; ours is added beside it",
			`{"hooks":{"PermissionRequest":[{"matcher":"*","hooks":[{"type":"command","command":"say ask","async":true}]}]}}`,
			func(t *testing.T, out []byte) {
				if !strings.Contains(string(out), `"PermissionRequest":[{"matcher":"*","hooks":[{"type":"command","command":"say ask","async":true}]},{"matcher":"*","hooks":[{"type":"command","command":"trailboss emit","timeout":3600}]}]`) {
					t.Errorf("got:\n%s", out)
				}
			}},
		{"a UTF-8 byte order mark is kept",
			"\xef\xbb\xbf{\"model\": \"opus\"}",
			func(t *testing.T, out []byte) {
				if !bytes.HasPrefix(out, []byte("\xef\xbb\xbf{\"model\": \"opus\", \"hooks\": {")) {
					t.Errorf("got %q", out)
				}
			}},
		{"an HTML-ish command is written as is, not \\u003c-escaped",
			`{}`,
			func(t *testing.T, out []byte) {
				if bytes.Contains(out, []byte(`\u00`)) {
					t.Errorf("escaped: %s", out)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Install([]byte(c.in), cmd)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf"))) {
				t.Fatalf("invalid JSON:\n%s", out)
			}
			c.check(t, out)
		})
	}
}

// readmeBlock is the README's block of hooks for command: PermissionRequest synchronous
// with a timeout, every other hook async.
func readmeBlock(command string) string { return block(command, false) }

// oldReadmeBlock is the block from before holding: every hook async, PermissionRequest too.
func oldReadmeBlock(command string) string { return block(command, true) }

func block(command string, allAsync bool) string {
	var b strings.Builder
	b.WriteString("{\n  \"hooks\": {\n")
	for i, ev := range Events() {
		m := ""
		if ev.Matcher != "" {
			m = `"matcher": "` + ev.Matcher + `", `
		}
		shape := `"async": true`
		if ev.Sync && !allAsync {
			shape = `"timeout": 3600`
		}
		b.WriteString(`    "` + ev.Name + `": [{` + m + `"hooks": [{"type": "command", "command": "` + command + `", ` + shape + `}]}]`)
		if i < len(Events())-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

func TestUninstall(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"nothing of ours: unchanged", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}`,
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}`},
		{"our hook in the user's group: only it goes",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}, {"type": "command", "command": "trailboss emit"}]}]}}`,
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}`},
		{"our hook first in the user's group",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "trailboss emit"}, {"type": "command", "command": "say hi"}]}]}}`,
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}`},
		{"any trailboss binary's emit is ours",
			`{"a": 1, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/opt/bin/trailboss emit"}]}], "X": []}}`,
			`{"a": 1, "hooks": {"X": []}}`},
		{"an empty group of the user's stays", `{"hooks": {"Stop": [{"hooks": []}, {"hooks": [{"type": "command", "command": "trailboss emit"}]}]}}`,
			`{"hooks": {"Stop": [{"hooks": []}]}}`},
		{"other programs named like us are not ours",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo trailboss emit"}, {"type": "command", "command": "trailboss emit --x"}, {"type": "http", "command": "trailboss emit"}]}]}}`,
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo trailboss emit"}, {"type": "command", "command": "trailboss emit --x"}, {"type": "http", "command": "trailboss emit"}]}]}}`},
		{"only ours: hooks key goes", "{\n  \"model\": \"x\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"trailboss emit\"}]}]}\n}\n",
			"{\n  \"model\": \"x\"\n}\n"},
		{"a second hooks key would take over: ours is emptied, not dropped",
			`{"hooks": 1, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "trailboss emit"}]}]}}`,
			`{"hooks": 1, "hooks": {}}`},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Uninstall([]byte(c.in), cmd)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestRoundTripEmptyContainers pins the one documented loss: an event list (or "hooks")
// that was there and empty before Install is gone after Uninstall. Claude Code reads both
// the same.
func TestRoundTripEmptyContainers(t *testing.T) {
	for in, want := range map[string]string{
		`{"hooks": {}}`:                          `{}`,
		`{"a": 1, "hooks": {"Stop": []}}`:        `{"a": 1}`,
		`{"hooks": {"Stop": [], "Other": true}}`: `{"hooks": {"Other": true}}`,
		`{"hooks": {"Other": []}}`:               `{"hooks": {"Other": []}}`,
	} {
		out, err := Install([]byte(in), cmd)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Uninstall(out, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if string(back) != want {
			t.Errorf("%s: round trip gave %s, want %s", in, back, want)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		in        string
		line, col int
		shape     string
	}{
		{"{\n  \"model\": \"opus\",\n}\n", 3, 1, ""},
		{"{\n  \"env\": {\"A\": \"ü\" \"B\"}\n}", 2, 20, ""},
		{`{"a": 1`, 1, 7, ""},
		{`[1, 2]`, 0, 0, "top level is not an object"},
		{`{"hooks": []}`, 0, 0, `"hooks" is not an object (line 1, column 11)`},
		{"{\"hooks\": {\n  \"Stop\": {}}}", 0, 0, "hooks.Stop is not a list (line 2, column 11)"},
	}
	for _, c := range cases {
		_, err := Install([]byte(c.in), cmd)
		_, uerr := Uninstall([]byte(c.in), cmd)
		var se *SyntaxError
		switch {
		case c.shape != "":
			if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), c.shape) {
				t.Errorf("Install(%q) = %v, want a shape error %q", c.in, err, c.shape)
			}
		case errors.As(err, &se):
			if se.Line != c.line || se.Column != c.col {
				t.Errorf("Install(%q): line %d column %d, want %d %d (%v)", c.in, se.Line, se.Column, c.line, c.col, err)
			}
			if !errors.As(uerr, &se) {
				t.Errorf("Uninstall(%q) = %v, want a syntax error", c.in, uerr)
			}
		default:
			t.Errorf("Install(%q) = %v, want a syntax error", c.in, err)
		}
	}
}

func TestIsTrailbossEmit(t *testing.T) {
	for s, want := range map[string]bool{
		"trailboss emit":                       true,
		"/usr/local/bin/trailboss emit":        true,
		"'/home/a b/bin/trailboss' emit":       true,
		`"/home/a b/bin/trailboss" emit`:       true,
		"'/home/it'\\''s/trailboss' emit":      true,
		"  trailboss emit  ":                   true,
		"trailboss emit --verbose":             false,
		"echo trailboss emit":                  false,
		"/x/not-trailboss emit":                false,
		"trailboss status":                     false,
		"FOO=1 trailboss emit":                 false,
		"/home/a b/trailboss emit":             false,
		"trailboss emit; rm -rf ~":             false,
		"sh -c 'trailboss emit'":               false,
		"/opt/trailboss/bin/trailboss emit":    true,
		"~/.tmux/plugins/trailboss/bin/x emit": false,
	} {
		if got := IsTrailbossEmit(s); got != want {
			t.Errorf("IsTrailbossEmit(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestInstalledPartial(t *testing.T) {
	in := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "trailboss emit"}]}],
	"SessionEnd": [{"hooks": [{"type": "command", "command": "/opt/bin/trailboss emit"}]}],
	"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "other"}]}]}}`
	if got := Installed([]byte(in), cmd); !slices.Equal(got, []string{"Stop", "SessionEnd"}) {
		t.Errorf("Installed = %v", got)
	}
	if got := Installed([]byte("{oops"), cmd); got != nil {
		t.Errorf("Installed(invalid) = %v", got)
	}
}

// FuzzInstallUninstall: for any input, neither function panics; for a JSON object with no
// Trail Boss hook, Install adds every event, is idempotent, and Uninstall gives back the
// same JSON (up to the documented loss of empty event lists and "hooks", see
// TestRoundTripEmptyContainers).
func FuzzInstallUninstall(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "settings", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"hooks": {"Stop": []}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[]}],"Stop":[]},"hooks":{}}`))
	f.Fuzz(func(t *testing.T, x []byte) {
		out, err := Install(x, cmd)
		if _, uerr := Uninstall(x, cmd); (err == nil) != (uerr == nil) && !errors.Is(err, ErrShape) {
			t.Fatalf("Install and Uninstall disagree on validity: %v / %v", err, uerr)
		}
		if err != nil {
			return
		}
		if !json.Valid(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf"))) {
			t.Fatalf("Install wrote invalid JSON:\n%q", out)
		}
		if len(Installed(x, cmd)) > 0 || len(bytes.TrimSpace(x)) == 0 || bytes.HasPrefix(x, []byte("\xef\xbb\xbf")) {
			return // already holds ours, or a new file: the property is about objects without ours
		}
		if ev := Installed(out, cmd); !containsAll(ev, allEventNames()) {
			t.Fatalf("after Install, Installed = %v\n%s", ev, out)
		}
		if again, err := Install(out, cmd); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Install is not idempotent (%v):\n%q\n%q", err, out, again)
		}
		back, err := Uninstall(out, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if want := normalized(t, x); !SameJSON(back, want) {
			t.Fatalf("Uninstall(Install(x)) != x\n   x %q\n out %q\nback %q", x, out, back)
		}
		if same, _ := Uninstall(x, cmd); !bytes.Equal(same, x) {
			t.Fatalf("Uninstall changed settings that hold nothing of ours: %q", same)
		}
	})
}

// normalized is x without what TestRoundTripEmptyContainers says a round trip drops: our
// events' empty lists, and "hooks" when that leaves it empty (each only when its key is not
// repeated).
func normalized(t *testing.T, x []byte) []byte {
	d, err := parseSettings(x)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(x, &v); err != nil {
		t.Fatal(err)
	}
	hi := d.root.lastIndex("hooks")
	if hi < 0 {
		return x
	}
	hooks := d.root.members[hi].val
	hv := v["hooks"].(map[string]any)
	for i, m := range hooks.members {
		if hooks.unique(i) && m.val.kind == kArray && len(m.val.elems) == 0 && slices.Contains(allEventNames(), m.key) {
			delete(hv, m.key)
		}
	}
	if len(hv) == 0 && d.root.unique(hi) {
		delete(v, "hooks")
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInstallRepointsStaleBinary(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "settings", "stale-path.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Install(orig, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("/old/")) || strings.Count(string(out), `"trailboss emit"`) != len(Events()) {
		t.Errorf("stale commands left, or a duplicate added:\n%s", out)
	}
	back, err := Uninstall(out, cmd)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"hooks\": {\n    \"SessionEnd\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say bye\"}]}]\n  }\n}\n"
	if string(back) != want {
		t.Errorf("Uninstall =\n%s\nwant\n%s", back, want)
	}
}

// TestInstallUpgradesAFormerMatcher: an older setup hooked PreToolUse for questions and
// plans only; Claude Code 2.1.332's auto mode asks permission with no PermissionRequest, so
// setup now hooks every tool. Our group is given the new matcher in place; from a group the
// user shares with us, ours is taken out and our own group added: one hook of ours either
// way, and the user's hook stays where it was.
func TestInstallUpgradesAFormerMatcher(t *testing.T) {
	ours := `{"type": "command", "command": "trailboss emit", "async": true}`
	theirs := `{"type": "command", "command": "~/bin/audit"}`
	for name, tt := range map[string]struct{ in, want string }{
		"our own group": {
			in:   `{"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion|ExitPlanMode", "hooks": [` + ours + `]}]}}`,
			want: `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [` + ours + `]}]}}`,
		},
		"a group shared with the user": {
			in:   `{"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion|ExitPlanMode", "hooks": [` + theirs + `, ` + ours + `]}]}}`,
			want: `{"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion|ExitPlanMode", "hooks": [` + theirs + `]}, {"matcher": "*", "hooks": [` + ours + `]}]}}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := Install([]byte(tt.in), cmd)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Hooks map[string]json.RawMessage `json:"hooks"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			var want struct {
				Hooks map[string]json.RawMessage `json:"hooks"`
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !SameJSON(got.Hooks["PreToolUse"], want.Hooks["PreToolUse"]) {
				t.Fatalf("PreToolUse after install: %s\nwant %s", got.Hooks["PreToolUse"], want.Hooks["PreToolUse"])
			}
			again, err := Install(out, cmd)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("a second install changed it (%v):\n%s", err, again)
			}
		})
	}
}
