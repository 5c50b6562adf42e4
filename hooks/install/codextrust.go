package install

// Whether Codex trusts Trail Boss's hooks. Codex (0.169 and later) runs a hook from
// config.toml only once the user has trusted it in the "Hooks need review" dialog (or
// /hooks), and skips the others without a word. It records each trust in the same file:
//
//	[hooks.state."<absolute config path>:<event in snake_case>:<group index>:<hook index>"]
//	trusted_hash = "sha256:…"
//
// (observed with the real Codex 0.169.0 and 0.171.0). The hash covers the hook as written:
// a changed command voids the trust, and Codex asks again. Trail Boss does not know how the
// hash is made, so it checks only that a trust is recorded for each of its hooks' places.

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/pelletier/go-toml/v2"
)

// CodexUntrustedHooks returns the events of Trail Boss's hooks in config (the file at path)
// that Codex has no trust recorded for, or that the user turned off (enabled = false). A
// config that is not valid TOML gives none: Codex would not start with it either.
func CodexUntrustedHooks(config []byte, path string) []string {
	var doc struct {
		Hooks map[string]any `toml:"hooks"`
	}
	if toml.Unmarshal(config, &doc) != nil {
		return nil
	}
	state, _ := doc.Hooks["state"].(map[string]any)
	paths := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		paths = append(paths, real)
	}
	var untrusted []string
	for _, event := range codexAllHookEvents {
		groups, _ := doc.Hooks[event].([]any)
		for g, group := range groups {
			entries, _ := asTable(group)["hooks"].([]any)
			for h, entry := range entries {
				command, _ := asTable(entry)["command"].(string)
				if !isTrailbossCodexCommand(command) {
					continue
				}
				if !codexTrusted(state, paths, fmt.Sprintf(":%s:%d:%d", snakeCase(event), g, h)) {
					untrusted = append(untrusted, event)
				}
			}
		}
	}
	return untrusted
}

// codexAllHookEvents are the events CodexHookEvents may install, in its order.
var codexAllHookEvents = CodexHookEvents(true)

// codexTrusted reports whether state holds a trust, not turned off, for the hook at place
// (":event:group:hook") of the config at one of paths.
func codexTrusted(state map[string]any, paths []string, place string) bool {
	for _, p := range paths {
		s := asTable(state[p+place])
		if hash, _ := s["trusted_hash"].(string); hash == "" {
			continue
		}
		if enabled, ok := s["enabled"].(bool); ok && !enabled {
			return false
		}
		return true
	}
	return false
}

func asTable(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// snakeCase is how Codex names an event in its trust keys: PermissionRequest →
// permission_request.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
