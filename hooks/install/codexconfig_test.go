package install

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// A config.toml as Codex users write it: root keys with comments, a multi-line array whose
// lines start with "[", a multi-line string holding "#" and "[x]" lines, tables, a comment
// right above the first table, and Codex's own [projects] entries.
const userCodexConfig = `# Codex settings
model = "gpt-5.5"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
writable = [
  ["nested", "array"],
  "/tmp/extra",
]
developer_instructions = """
# Keep it short
[not a table]
"""

# MCP servers I use
[mcp_servers.docs]
command = "docs-server"
args = ["--port", "4000"]

[projects."/home/dev/src/api"]
trust_level = "trusted"
`

func parseTOML(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := toml.Unmarshal(b, &v); err != nil {
		t.Fatalf("not valid TOML: %v\n%s", err, b)
	}
	return v
}

// without returns v without the keys Trail Boss adds.
func without(v map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, x := range v {
		out[k] = x
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// hookCommands returns event → the commands of its handlers, in order.
func hookCommands(t *testing.T, v map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	hooks, _ := v["hooks"].(map[string]any)
	for ev, groups := range hooks {
		gs, ok := groups.([]any)
		if !ok {
			continue
		}
		for _, g := range gs {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				hm := h.(map[string]any)
				ours := strings.Contains(hm["command"].(string), "trailboss")
				if hm["type"] != "command" || (ours && hm["timeout"] != int64(CodexHookTimeout)) {
					t.Errorf("%s handler %v", ev, hm)
				}
				out[ev] = append(out[ev], hm["command"].(string))
			}
		}
	}
	return out
}

func TestInstallCodexAddsNotifyAndHooksAndKeepsEverythingElse(t *testing.T) {
	res, err := InstallCodex([]byte(userCodexConfig), "trailboss")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Notify || res.UserNotify != nil || !reflect.DeepEqual(res.Hooks, CodexHookEvents(false)) {
		t.Fatalf("result %+v", res)
	}
	got := parseTOML(t, res.Config)
	if n, _ := got["notify"].([]any); !reflect.DeepEqual(n, []any{"trailboss", "emit", "--codex"}) {
		t.Errorf("notify = %v", got["notify"])
	}
	want := map[string][]string{}
	for _, ev := range CodexHookEvents(false) {
		want[ev] = []string{"trailboss emit --codex"}
	}
	if cmds := hookCommands(t, got); !reflect.DeepEqual(cmds, want) {
		t.Errorf("hooks %v, want %v", cmds, want)
	}
	if !reflect.DeepEqual(without(got, "notify", "hooks", "features"), parseTOML(t, []byte(userCodexConfig))) {
		t.Errorf("the user's settings changed:\n%s", res.Config)
	}
	if f, _ := got["features"].(map[string]any); res.AppServer != AppServerTurnedOff ||
		!reflect.DeepEqual(f, map[string]any{"daemon_auto_start": false}) {
		t.Errorf("app-server %v, features %v: want Codex's shared app-server turned off", res.AppServer, got["features"])
	}
	// The notify block sits where the root keys end, above the comment of the first table.
	if !strings.Contains(string(res.Config), "\"\"\"\n\n"+codexNotifyStart+"\n") ||
		!strings.Contains(string(res.Config), codexNotifyEnd+"\n# MCP servers I use\n[mcp_servers.docs]") {
		t.Errorf("notify block misplaced:\n%s", res.Config)
	}
	if !strings.HasSuffix(string(res.Config), codexHooksEnd+"\n") {
		t.Errorf("hooks block is not at the end:\n%s", res.Config)
	}
	if !strings.Contains(string(res.Config), "[features]\n"+codexNoAutoStart+"\n"+codexFeaturesEnd+"\n"+codexHooksStart+"\n") {
		t.Errorf("features block is not right before the hooks block:\n%s", res.Config)
	}

	again, err := InstallCodex(res.Config, "trailboss")
	if err != nil || !bytes.Equal(again.Config, res.Config) {
		t.Fatalf("installing twice changed the config (%v):\n%s", err, again.Config)
	}
	back, found, err := UninstallCodex(res.Config)
	if err != nil || !found || string(back) != userCodexConfig {
		t.Fatalf("uninstall: found=%v err=%v, not the original bytes:\n%s", found, err, back)
	}
}

func TestInstallCodexLayouts(t *testing.T) {
	for name, config := range map[string]string{
		"empty":               "",
		"root keys only":      "model = \"o3\"\n",
		"no final newline":    "model = \"o3\"\n[tui]\nnotifications = true",
		"root no newline":     "model = \"o3\"",
		"tables only":         "[tui]\nnotifications = true\n",
		"crlf":                "model = \"o3\"\r\n\r\n[tui]\r\nnotifications = true\r\n",
		"comment only":        "# nothing yet\n",
		"blank lines at end":  "model = \"o3\"\n\n\n",
		"array table first":   "[[skills]]\nname = \"x\"\n",
		"user inline hooks":   "[[hooks.PermissionRequest]]\n[[hooks.PermissionRequest.hooks]]\ntype = \"command\"\ncommand = \"my-audit\"\n",
		"hooks.state present": "[hooks.state.\"/home/u/.codex/config.toml:stop:0:0\"]\ntrusted_hash = \"abc\"\n",
		"features table":      "model = \"o3\"\n\n[features]\nweb_search = true\n\n[tui]\nx = 1\n",
		"features table last": "[features]",
		"features subtable":   "[features.extra]\nx = 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			res, err := InstallCodex([]byte(config), "/opt/my tools/trailboss")
			if err != nil {
				t.Fatal(err)
			}
			got := parseTOML(t, res.Config)
			if n, _ := got["notify"].([]any); !reflect.DeepEqual(n, []any{"/opt/my tools/trailboss", "emit", "--codex"}) {
				t.Errorf("notify = %v\n%s", got["notify"], res.Config)
			}
			if f, _ := got["features"].(map[string]any); f["daemon_auto_start"] != false {
				t.Errorf("features = %v\n%s", got["features"], res.Config)
			}
			cmds := hookCommands(t, got)
			if last := cmds["PermissionRequest"]; len(last) == 0 || last[len(last)-1] != "'/opt/my tools/trailboss' emit --codex" {
				t.Errorf("PermissionRequest commands %q: ours must come after the user's", last)
			}
			if name == "crlf" && bytes.Contains(bytes.ReplaceAll(res.Config, []byte("\r\n"), nil), []byte("\n")) {
				t.Errorf("a CRLF file got LF lines:\n%q", res.Config)
			}
			back, _, err := UninstallCodex(res.Config)
			if err != nil || string(back) != config {
				t.Fatalf("uninstall (%v) gave\n%q\nwant\n%q", err, back, config)
			}
			again, err := InstallCodex(res.Config, "/opt/my tools/trailboss")
			if err != nil || !bytes.Equal(again.Config, res.Config) {
				t.Fatalf("installing twice changed the config (%v)", err)
			}
		})
	}
}

func TestInstallCodexLeavesTheUsersNotifyAlone(t *testing.T) {
	config := "notify = [\"python3\", \"/home/dev/.codex/notify.py\"]\nmodel = \"o3\"\n"
	res, err := InstallCodex([]byte(config), "trailboss")
	if err != nil {
		t.Fatal(err)
	}
	if res.Notify || !reflect.DeepEqual(res.UserNotify, []string{"python3", "/home/dev/.codex/notify.py"}) ||
		!reflect.DeepEqual(res.Hooks, CodexHookEvents(true)) {
		t.Fatalf("result %+v", res)
	}
	got := parseTOML(t, res.Config)
	if !reflect.DeepEqual(got["notify"], []any{"python3", "/home/dev/.codex/notify.py"}) {
		t.Errorf("the user's notify was changed: %v", got["notify"])
	}
	if _, ok := hookCommands(t, got)["Stop"]; !ok {
		t.Errorf("no Stop hook to carry turn ends instead of notify:\n%s", res.Config)
	}
	if bytes.Contains(res.Config, []byte(codexNotifyStart+"\n")) {
		t.Errorf("a notify block was added beside the user's notify:\n%s", res.Config)
	}
	back, _, err := UninstallCodex(res.Config)
	if err != nil || string(back) != config {
		t.Fatalf("uninstall (%v):\n%s", err, back)
	}

	// The chained line runs both, each with the payload.
	chain := CodexNotifyChain(res.UserNotify, "/opt/tb dir/trailboss")
	var v struct {
		Notify []string `toml:"notify"`
	}
	if err := toml.Unmarshal([]byte(chain), &v); err != nil {
		t.Fatalf("chain %q: %v", chain, err)
	}
	want := []string{"sh", "-c", `python3 /home/dev/.codex/notify.py "$1"; '/opt/tb dir/trailboss' emit --codex "$1"`, "trailboss-notify"}
	if !reflect.DeepEqual(v.Notify, want) {
		t.Errorf("chain %q, want %q", v.Notify, want)
	}

	// A notify that already runs trailboss (written by hand) is enough: no block, no Stop.
	res, err = InstallCodex([]byte("notify = [\"/usr/local/bin/trailboss\", \"emit\", \"--codex\"]\n"), "trailboss")
	if err != nil || res.Notify || res.UserNotify != nil || !reflect.DeepEqual(res.Hooks, CodexHookEvents(false)) {
		t.Fatalf("hand-written trailboss notify: %+v, %v", res, err)
	}
	// A notify that is not a list of strings cannot be chained, and is left alone too.
	res, err = InstallCodex([]byte("notify = \"notify-send\"\n"), "trailboss")
	if err != nil || res.Notify || !res.UserNotifyOdd {
		t.Fatalf("odd notify: %+v, %v", res, err)
	}
}

func TestInstallCodexRefusesWhatItCannotEditSafely(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"invalid TOML", "model = \"o3\"\n[tui\n", "line 2"},
		{"duplicate key", "model = 1\nmodel = 2\n", "line 2"},
		{"hooks of another shape", "hooks = \"off\"\n", "would make the config invalid"},
		{"event of another shape", "[hooks]\nSessionStart = []\n", "would make the config invalid"},
		{"unterminated block", "model = 1\n" + codexNotifyStart + "\nnotify = [\"trailboss\", \"emit\", \"--codex\"]\n", "never ends"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := InstallCodex([]byte(tt.config), "trailboss")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
	var se *CodexSyntaxError
	if _, err := InstallCodex([]byte("a = [\n"), "trailboss"); !errors.As(err, &se) || se.Line == 0 {
		t.Fatalf("err = %v, want a *CodexSyntaxError with a line", err)
	}
}

// Codex rewrites config.toml itself (toml_edit): a new root key lands after the last root
// key, inside the notify block; a trusted hook's state lands at the end, inside the hooks
// block. Uninstall takes out Trail Boss's lines only.
func TestUninstallCodexKeepsWhatCodexAddedInsideTheBlocks(t *testing.T) {
	res, err := InstallCodex([]byte(userCodexConfig), "trailboss")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(res.Config), codexNotifyEnd, "model_reasoning_effort = \"high\"\n"+codexNotifyEnd, 1)
	edited = strings.Replace(edited, codexHooksEnd,
		"[hooks.state.\"/home/dev/.codex/config.toml:permission_request:0:0\"]\ntrusted_hash = \"sha256:abc\"\n"+codexHooksEnd, 1)
	parseTOML(t, []byte(edited))
	back, found, err := UninstallCodex([]byte(edited))
	if err != nil || !found {
		t.Fatal(found, err)
	}
	got := parseTOML(t, back)
	if got["model_reasoning_effort"] != "high" || got["notify"] != nil {
		t.Errorf("root keys after uninstall: %v", got)
	}
	hooks, _ := got["hooks"].(map[string]any)
	if len(hooks) != 1 || hooks["state"] == nil {
		t.Errorf("hooks after uninstall: %v\n%s", hooks, back)
	}
}

// Codex's shared app-server: turned off under the user's own [features], left as the user
// wrote it, or left alone where features is written in a way setup does not edit.
func TestInstallCodexTurnsOffTheSharedAppServer(t *testing.T) {
	tests := []struct {
		name, config string
		want         CodexAppServer
		autoStart    any // features.daemon_auto_start after install; nil: unset
	}{
		{"no features", "model = \"o3\"\n", AppServerTurnedOff, false},
		{"a features table", "[features]\nweb_search = true\n", AppServerTurnedOff, false},
		{"already off", "[features]\ndaemon_auto_start = false\n", AppServerOffAlready, false},
		{"kept on", "[features]\ndaemon_auto_start = true\n", AppServerKeptOn, true},
		{"dotted, off", "features.daemon_auto_start = false\n", AppServerOffAlready, false},
		{"dotted, other", "features.web_search = true\n", AppServerNotEdited, nil},
		{"inline, on", "features = { daemon_auto_start = true }\n", AppServerKeptOn, true},
		{"inline, other", "features = { web_search = true }\n", AppServerNotEdited, nil},
		{"a profile's own", "[profiles.fast.features]\ndaemon_auto_start = true\n", AppServerTurnedOff, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := InstallCodex([]byte(tt.config), "trailboss")
			if err != nil {
				t.Fatal(err)
			}
			f, _ := parseTOML(t, res.Config)["features"].(map[string]any)
			if res.AppServer != tt.want || f["daemon_auto_start"] != tt.autoStart {
				t.Errorf("app-server %v, daemon_auto_start %v; want %v, %v\n%s", res.AppServer, f["daemon_auto_start"], tt.want, tt.autoStart, res.Config)
			}
			if shared := CodexSharesAppServer(res.Config); shared != (tt.autoStart != false) {
				t.Errorf("CodexSharesAppServer = %v after install", shared)
			}
			if back, _, err := UninstallCodex(res.Config); err != nil || string(back) != tt.config {
				t.Errorf("uninstall (%v):\n%s", err, back)
			}
		})
	}
	// Under the user's [features] the block goes right under the header.
	res, _ := InstallCodex([]byte("[features]\nweb_search = true\n"), "trailboss")
	if !strings.Contains(string(res.Config), codexNotifyEnd+"\n[features]\n"+codexFeaturesStart+"\n") {
		t.Errorf("features block not under the user's header:\n%s", res.Config)
	}
}

// Codex edits config.toml with toml_edit: a feature it turns on lands after the last key of
// [features], inside Trail Boss's features block. Undo keeps it, and its header.
func TestUninstallCodexKeepsAFeatureCodexAddedUnderOurHeader(t *testing.T) {
	orig := "model = \"o3\"\n\n[tui]\nx = 1\n"
	res, err := InstallCodex([]byte(orig), "trailboss")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(res.Config), codexNoAutoStart+"\n", codexNoAutoStart+"\nweb_search = true\n", 1)
	back, _, err := UninstallCodex([]byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	got := parseTOML(t, back)
	if f, _ := got["features"].(map[string]any); !reflect.DeepEqual(f, map[string]any{"web_search": true}) {
		t.Errorf("features after undo: %v\n%s", got["features"], back)
	}
	if tui, _ := got["tui"].(map[string]any); !reflect.DeepEqual(tui, map[string]any{"x": int64(1)}) {
		t.Errorf("[tui] after undo: %v\n%s", got["tui"], back)
	}
	// And a line of ours elsewhere is not taken for the features block's.
	inHooks := strings.Replace(string(res.Config), codexHooksEnd, "[features2]\n"+codexNoAutoStart+"\n"+codexHooksEnd, 1)
	back, _, _ = UninstallCodex([]byte(inHooks))
	if !strings.Contains(string(back), "[features2]\n"+codexNoAutoStart+"\n") {
		t.Errorf("a key Codex wrote inside the hooks block was taken out:\n%s", back)
	}
}

// The config the real Codex 0.169.0 wrote back after trusting Trail Boss's hooks (fixture
// shared/fixtures/real/codex-0.169.0/config.after-codex-edits.toml, with the [features] the
// tester had added by hand): Codex put its [hooks.state] and [tui] tables inside the hooks
// block. Setup finds daemon_auto_start already off, and undo keeps Codex's tables.
func TestInstallCodexOnWhatRealCodexWrote(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "config.after-codex-edits.toml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := InstallCodex(b, "/home/dev/scratch/bin/trailboss")
	if err != nil || res.AppServer != AppServerOffAlready {
		t.Fatalf("install: %v, app-server %v", err, res.AppServer)
	}
	back, found, err := UninstallCodex(b)
	if err != nil || !found {
		t.Fatal(found, err)
	}
	got := parseTOML(t, back)
	hooks, _ := got["hooks"].(map[string]any)
	if got["notify"] != nil || len(hooks) != 1 || hooks["state"] == nil || got["tui"] == nil ||
		got["features"] == nil {
		t.Errorf("after undo:\n%s", back)
	}
}

func FuzzInstallUninstallCodex(f *testing.F) {
	for _, s := range []string{userCodexConfig, "", "a = 1", "[t]\r\nx = 1\r\n", "# c\n[t]\n", "notify = [\"x\"]\n",
		"x = \"\"\"\n# y\n\"\"\"\n[t]\n", "[[hooks.Stop]]\n", "[features]\nx = 1\n", "features.a = 1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, config []byte) {
		if bytes.Contains(config, []byte("trailboss")) || checkTOML(config) != nil {
			return
		}
		res, err := InstallCodex(config, "trailboss")
		if err != nil {
			return // a "notify" or "hooks" of its own shape: refused, nothing changed
		}
		back, found, err := UninstallCodex(res.Config)
		if err != nil || !found || !bytes.Equal(back, config) {
			t.Fatalf("Uninstall(Install(x)) = %q, %v; want x = %q", back, err, config)
		}
		again, err := InstallCodex(res.Config, "trailboss")
		if err != nil || !bytes.Equal(again.Config, res.Config) {
			t.Fatalf("installing twice changed %q into %q (%v)", res.Config, again.Config, err)
		}
	})
}
