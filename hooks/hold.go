package hooks

import "time"

// PermissionHookTimeout is the `timeout` setup writes on Claude Code's PermissionRequest
// hook, the one hook that may hold for a delivered answer: Claude Code ends a hook after
// that long (its default is 10 minutes, exactly the default prompt_ttl, so a hold would be
// cut at the last moment). An hour leaves room for a prompt_ttl of up to about an hour; the
// emitter gives up a little before it, so it always exits by itself, printing nothing, and
// the dialog stays for the keyboard.
const PermissionHookTimeout = time.Hour
