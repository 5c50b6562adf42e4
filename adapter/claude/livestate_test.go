package claude

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/trailboss/trailboss/adapter"
)

// The real files Claude Code 2.1.197 wrote while a command was approved and ran
// (testdata/real/sessions, see SOURCE.md).
func TestReadRealLiveStates(t *testing.T) {
	tests := []struct {
		file, status, waitingFor string
		at                       int64
	}{
		{"idle-at-start.json", LiveIdle, "", 1795343493899},
		{"waiting.json", LiveWaiting, "permission prompt", 1795343499404},
		{"busy.json", LiveBusy, "", 1795343502225},
		{"idle-after.json", LiveIdle, "", 1795343510411},
	}
	for _, tt := range tests {
		st, err := ReadLiveState(filepath.Join("testdata", "real", "sessions", tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if st.PID != 2323 || st.SessionID != "8e786f86-36c9-4122-9ab6-6a89204308be" || st.Status != tt.status ||
			st.WaitingFor != tt.waitingFor || !st.At.Equal(time.UnixMilli(tt.at)) {
			t.Errorf("%s: %+v", tt.file, st)
		}
	}
}

func TestParseLiveStateRejects(t *testing.T) {
	for name, body := range map[string]string{
		"half written": `{"pid":1,"sessionId":"a","status":"bu`,
		"no session":   `{"pid":1,"status":"busy","statusUpdatedAt":5}`,
		"no status":    `{"pid":1,"sessionId":"a","statusUpdatedAt":5}`,
		"no time":      `{"pid":1,"sessionId":"a","status":"busy"}`,
		"not object":   `[1,2]`,
		"wrong type":   `{"pid":"x","sessionId":"a","status":"busy","statusUpdatedAt":5}`,
	} {
		if _, err := ParseLiveState([]byte(body)); !errors.Is(err, adapter.ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", name, err)
		}
	}
	if _, err := ReadLiveState(t.TempDir()); err == nil {
		t.Error("a directory was read as a state file")
	}
}

func TestConfigDirs(t *testing.T) {
	env := map[string]string{"HOME": "/home/dev"}
	if got := ConfigDir(func(k string) string { return env[k] }); got != "/home/dev/.claude" {
		t.Errorf("ConfigDir from HOME: %q", got)
	}
	env["CLAUDE_CONFIG_DIR"] = "/cfg"
	if got := ConfigDir(func(k string) string { return env[k] }); got != "/cfg" {
		t.Errorf("ConfigDir from CLAUDE_CONFIG_DIR: %q", got)
	}
	for path, want := range map[string]string{
		"/home/dev/.claude/projects/-home-dev-work/abc.jsonl": "/home/dev/.claude",
		"/cfg/projects/p/abc.jsonl":                           "/cfg",
		"/elsewhere/abc.jsonl":                                "",
		"relative/projects/p/abc.jsonl":                       "",
		"":                                                    "",
	} {
		if got := ConfigDirOfTranscript(path); got != want {
			t.Errorf("ConfigDirOfTranscript(%q) = %q, want %q", path, got, want)
		}
	}
}
