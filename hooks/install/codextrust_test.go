package install

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCodexUntrustedHooks: a hook of Trail Boss's counts as trusted only with a trust recorded
// at its own place (event, group index, hook index) of this config, not turned off.
func TestCodexUntrustedHooks(t *testing.T) {
	// The real Codex 0.169.0 trusted the four hooks setup wrote then: Interrupt, new since,
	// is not trusted.
	b, err := os.ReadFile(filepath.Join("testdata", "config.after-codex-edits.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := CodexUntrustedHooks(b, "/home/dev/.codex/config.toml"); len(got) != 0 {
		t.Errorf("what the real Codex trusted: untrusted %v, want none", got)
	}
	if got := CodexUntrustedHooks(b, "/elsewhere/config.toml"); len(got) != 4 {
		t.Errorf("another config's trust: untrusted %v, want all four", got)
	}

	// The user's own PermissionRequest group comes first: Trail Boss's is group 1.
	user := "[[hooks.PermissionRequest]]\n[[hooks.PermissionRequest.hooks]]\ntype = \"command\"\ncommand = \"my-hook\"\n"
	res, err := InstallCodex([]byte(user), "trailboss")
	if err != nil {
		t.Fatal(err)
	}
	const path = "/h/.codex/config.toml"
	all := []string{"SessionStart", "UserPromptSubmit", "PermissionRequest", "PostToolUse", "Interrupt"}
	if got := CodexUntrustedHooks(res.Config, path); !slices.Equal(got, all) {
		t.Errorf("nothing trusted: untrusted %v, want %v", got, all)
	}
	trust := func(place string, extra string) string {
		return "\n[hooks.state.\"" + path + ":" + place + "\"]\ntrusted_hash = \"sha256:00\"\n" + extra
	}
	cfg := string(res.Config) + "\n[hooks.state]\n" + trust("session_start:0:0", "") + trust("user_prompt_submit:0:0", "") +
		trust("permission_request:0:0", "") + trust("post_tool_use:0:0", "enabled = false\n")
	want := []string{"PermissionRequest", "PostToolUse", "Interrupt"}
	if got := CodexUntrustedHooks([]byte(cfg), path); !slices.Equal(got, want) {
		t.Errorf("user's group trusted, one turned off, one new: untrusted %v, want %v", got, want)
	}
	cfg += trust("permission_request:1:0", "") + trust("interrupt:0:0", "")
	if got := CodexUntrustedHooks([]byte(cfg), path); !slices.Equal(got, []string{"PostToolUse"}) {
		t.Errorf("untrusted %v, want only the one turned off", got)
	}
}
