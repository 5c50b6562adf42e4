package daemon

import (
	"strings"

	"github.com/trailboss/trailboss/adapter"
)

// hookBody is a Claude Code hook payload of session and hook, with extra fields.
func hookBody(session, hook string, extra ...string) string {
	fields := []string{`"session_id":"` + session + `"`, `"hook_event_name":"` + hook + `"`,
		`"transcript_path":""`, `"cwd":"/src/shop"`}
	return "{" + strings.Join(append(fields, extra...), ",") + "}"
}

// What the tests of the HTTP face (package daemon_test) share with the engine's.
var Discard = discard

const TestSocket = testSocket

// SetHookParser adds a parser of a harness for one test, and returns what removes it.
func SetHookParser(name string, p func([]byte, adapter.Meta) ([]adapter.Event, error)) (remove func()) {
	hookDecoders[name] = parsedBy(p)
	return func() { delete(hookDecoders, name) }
}
