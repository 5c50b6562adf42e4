package daemon_test

import (
	"os/exec"
	"strings"
	"testing"
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
