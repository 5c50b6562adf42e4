package daemon_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/daemon"
)

// The arrows between the daemon's packages (docs/architecture.md): the core (this package)
// is put together with its outer parts by cmd/trailboss and imports none of them; the
// adapters read the harnesses and import nothing of the daemon. An import that runs back
// up fails here, not in a review.
func TestImportsRunOneWay(t *testing.T) {
	const mod = "github.com/trailboss/trailboss/"
	rules := []struct {
		pkgs      string
		forbidden func(dep string) bool
		why       string
	}{
		{"./", func(dep string) bool {
			return dep == mod+"daemon/watch" || dep == mod+"daemon/httpapi" || dep == mod+"daemon/deliver"
		}, "the core imports none of its outer parts (watch, httpapi, deliver): cmd/trailboss puts them together"},
		{"../adapter/...", func(dep string) bool { return strings.HasPrefix(dep, mod+"daemon") },
			"an adapter imports nothing of the daemon: what both use lives in package adapter"},
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", r.pkgs).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", r.pkgs, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			for _, dep := range fields[1:] {
				if r.forbidden(dep) {
					t.Errorf("%s imports %s: %s", fields[0], dep, r.why)
				}
			}
		}
	}
}

// TestNoFunctionOver80Lines: a function of cmd/ or daemon/ that grew past 80 lines reads as a
// list; split it into its steps (serveDaemon, runSetup and Relay.sync show how).
func TestNoFunctionOver80Lines(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{filepath.Join("..", "cmd"), "."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
					if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 80 {
						t.Errorf("%s: %s is %d lines, more than 80", path, fn.Name.Name, n)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoHarnessNamedOutsideTheRegistry: a harness's knowledge lives in its adapter, and the
// core, the watchers and the deliverer ask the registry (harnesses.go, the one file of
// theirs that names harnesses). A harness's name in their code, a string, a comment or a
// log line is a rule of that harness grown in the wrong place (issue 32): say the rule in
// general words, and give the harness's case to its adapter, handed over by the registry.
// The names are the registry's, so a harness added there is checked too.
func TestNoHarnessNamedOutsideTheRegistry(t *testing.T) {
	names := map[string]bool{"claude": true, "codex": true, "opencode": true, "copilot": true, "gemini": true, "aider": true}
	for command, harness := range daemon.ScreenCommands() {
		names[strings.ToLower(command)], names[strings.ToLower(harness)] = true, true
	}
	for harness := range daemon.TypingRules() {
		names[strings.ToLower(harness)] = true
	}
	quoted := make([]string, 0, len(names))
	for n := range names {
		quoted = append(quoted, regexp.QuoteMeta(n))
	}
	sort.Strings(quoted)
	named := regexp.MustCompile(`(?i)` + strings.Join(quoted, "|"))

	checked := 0
	for _, dir := range []string{".", "watch", "deliver", "liverule", "enginetest"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || f == "harnesses.go" {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for i, line := range strings.Split(string(b), "\n") {
				if m := named.FindString(line); m != "" {
					t.Errorf("daemon/%s:%d names the harness %q: say the rule in general words, and give its case "+
						"to the harness's adapter, through daemon/harnesses.go\n\t%s", filepath.ToSlash(f), i+1, m, strings.TrimSpace(line))
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d source files read: the test no longer finds the packages it guards", checked)
	}
}
