package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestInstalledBinaryLinksNoTestScaffolding: trailboss, built as make build builds it (no
// build tags), links nothing under testscripts: not the fake Telegram Bot API
// (testscripts/fakeapi/telegram), nor the Prompt Lab that brings it. Those are built in only
// with the lab tag (bin/trailboss-lab, which make test runs and nothing installs). The
// lab-tagged build is listed too, to see that the check would notice the fake.
func TestInstalledBinaryLinksNoTestScaffolding(t *testing.T) {
	const fake = "github.com/trailboss/trailboss/testscripts/fakeapi/telegram"
	deps := goListDeps(t)
	if len(deps) < 10 || !slices.Contains(deps, "github.com/trailboss/trailboss/daemon") {
		t.Fatalf("go list -deps listed too little to judge: %q", deps)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/trailboss/trailboss/testscripts/") {
			t.Errorf("the installed trailboss links %s (test scaffolding)", p)
		}
	}
	if lab := goListDeps(t, "-tags", "lab"); !slices.Contains(lab, fake) {
		t.Errorf("the lab-tagged build does not link %s: this test can no longer see the fake", fake)
	}
}

// goListDeps is `go list -deps` of this package, with no GOFLAGS of the caller's (a -tags
// there would change what is listed).
func goListDeps(t *testing.T, flags ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append(append([]string{"list", "-deps"}, flags...), ".")...)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", strings.Join(flags, " "), err)
	}
	return strings.Fields(string(out))
}
