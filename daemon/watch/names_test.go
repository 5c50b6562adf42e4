package watch_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/daemon"
)

// TestWatchNamesNoHarness: a harness's knowledge lives in its adapter, and the daemon asks
// the registry (daemon/harnesses.go). No source file of this package names a harness, in
// code, comment or log line: the names are the registry's, so a harness added there is
// checked too, plus the ones the acceptance check of issue 32 greps for.
func TestWatchNamesNoHarness(t *testing.T) {
	names := map[string]bool{"claude": true, "codex": true, "opencode": true, "copilot": true, "gemini": true, "aider": true}
	for command, harness := range daemon.ScreenCommands() {
		names[strings.ToLower(command)], names[strings.ToLower(harness)] = true, true
	}
	for harness := range daemon.TranscriptReaders() {
		names[strings.ToLower(harness)] = true
	}
	for harness := range daemon.LiveStateSources() {
		names[strings.ToLower(harness)] = true
	}
	for harness := range daemon.FullyHooked() {
		names[strings.ToLower(harness)] = true
	}
	quoted := make([]string, 0, len(names))
	for n := range names {
		quoted = append(quoted, regexp.QuoteMeta(n))
	}
	sort.Strings(quoted)
	named := regexp.MustCompile(`(?i)` + strings.Join(quoted, "|"))

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		found = append(found, linesMatching(t, f, named)...)
	}
	// Until dialogs.go, and livestate.go's liveView … liveWords with it, move out of this
	// package (issue 32, under way in another branch), their lines are the harness's words
	// still here: reported, not failed, while dialogs.go is. Any other file fails.
	var pending []string
	if _, err := os.Stat("dialogs.go"); err == nil {
		var rest []string
		for _, l := range found {
			if strings.HasPrefix(l, "dialogs.go:") || strings.HasPrefix(l, "livestate.go:") {
				pending = append(pending, l)
			} else {
				rest = append(rest, l)
			}
		}
		found = rest
	}
	if len(found) > 0 {
		t.Errorf("harness names in daemon/watch (say it in general words, or move it to the harness's adapter):\n%s",
			strings.Join(found, "\n"))
	}
	if len(pending) > 0 {
		t.Skipf("harness names left for the move of dialogs.go and livestate.go's live words:\n%s",
			strings.Join(pending, "\n"))
	}
}

// linesMatching returns "file:line: text" for each line of file that re matches.
func linesMatching(t *testing.T, file string, re *regexp.Regexp) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if re.MatchString(sc.Text()) {
			out = append(out, file+":"+strconv.Itoa(n)+": "+strings.TrimSpace(sc.Text()))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
