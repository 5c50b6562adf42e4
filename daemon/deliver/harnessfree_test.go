package deliver

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter"
)

// The deliverer knows no harness by name: what a program takes (how its screen settles, how
// it reads several lines, how its input box and dialogs show) is its adapter's, handed over
// by the registry (daemon/harnesses.go, Deliverer.Typing). A harness's name in its code, a
// string, a comment or a log message is a rule of that harness grown in the wrong place
// (issue 32).
func TestDeliverNamesNoHarness(t *testing.T) {
	names := []string{"claude", "codex", "opencode", "copilot", "gemini", "aider",
		adapter.HarnessClaude, adapter.HarnessCodex, adapter.HarnessOpenCode, adapter.HarnessCopilot, adapter.HarnessGemini}
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	named := regexp.MustCompile(`(?i)` + strings.Join(names, "|"))
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if m := named.FindString(line); m != "" {
				t.Errorf("%s:%d names the harness %q: say the rule in general words, and give its case to the "+
					"harness's adapter (adapter/prompt's Typing, through daemon/harnesses.go)\n\t%s", f, i+1, m, strings.TrimSpace(line))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source file of package deliver was read")
	}
}
