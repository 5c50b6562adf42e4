package statusfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAndRemoveTakesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, "⚠ 2 stuck", 100); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, "⚠ 3 stuck", 100); err != nil {
		t.Fatal(err)
	}
	if line, pid, err := Read(dir); err != nil || line != "⚠ 3 stuck" || pid != 100 {
		t.Fatalf("Read = %q, %d, %v", line, pid, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	// A newer daemon (pid 200) wrote the file: the old one's Remove leaves it.
	if err := Write(dir, "", 200); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir, 100); err != nil {
		t.Fatal(err)
	}
	if _, pid, _ := Read(dir); pid != 200 {
		t.Fatalf("the old daemon removed the new one's line")
	}
	if err := Remove(dir, 200); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, Name)); !os.IsNotExist(err) {
		t.Fatalf("the file is still there after its daemon's Remove: %v", err)
	}
}

// shellFunction is docs/status-line.md's function for bash and zsh, word for word.
const shellFunction = `trailboss_status() {
  local pid
  { IFS= read -r TRAILBOSS_LINE && read -r _ pid; } < "$1" 2>/dev/null &&
    kill -0 "$pid" 2>/dev/null || TRAILBOSS_LINE=
}`

// The function docs/status-line.md gives, in bash: the status when its daemon runs; nothing for a
// line left by a daemon that died; nothing when there is no file. No process but bash.
func TestTheREADMEsBashLinesTellALiveLineFromAStaleOne(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	show := func() string {
		out, err := exec.Command(bash, "--norc", "-c", shellFunction+`
trailboss_status "$1"; printf '%s' "$TRAILBOSS_LINE"`, "bash", filepath.Join(dir, Name)).Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		return string(out)
	}
	if got := show(); got != "" {
		t.Fatalf("no file: %q", got)
	}
	if err := Write(dir, "⚠ 2 stuck", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if got := show(); got != "⚠ 2 stuck" {
		t.Fatalf("live daemon: %q", got)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, "⚠ 2 stuck", dead.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if got := show(); strings.Contains(got, "stuck") {
		t.Fatalf("a dead daemon's line was shown: %q", got)
	}
}

// The function tested above is the one docs/status-line.md gives, byte for byte.
func TestTheDocsGiveTheTestedFunction(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "status-line.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), shellFunction) {
		t.Fatalf("docs/status-line.md does not give the tested function:\n%s", shellFunction)
	}
}
