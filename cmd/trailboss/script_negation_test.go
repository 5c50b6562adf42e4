package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestEveryScriptCommandHonoursNegation runs each of the scripts' own commands under `!`. A
// positive-only command must fail saying "unsupported: ! NAME" before it does anything (an
// ignored `!` once let `! waitpane …` quietly assert the positive); a negatable one must
// invert, which a one-line script shows for each with a call that fails positively.
func TestEveryScriptCommandHonoursNegation(t *testing.T) {
	var names []string
	for name := range scriptCommands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		failed, log := runScriptLine(t, "! "+name+" some args\n")
		if !failed || !strings.Contains(log, "unsupported: ! "+name) {
			t.Errorf("`! %s` must fail with \"unsupported: ! %s\"; failed=%v, log:\n%s", name, name, failed, log)
		}
	}

	// Each negatable command, with arguments that make its positive form fail (in a script
	// with no tmux server, no settings file and no daemon): under `!` the script passes.
	inverted := map[string]string{
		"tmux": "tmux-start\n! tmux no-such-command\n",
		// Needs a queued item: livestate_without_hooks.txtar and popup_demo_agent.txtar
		// use `! queuefield` on a field that must not match.
		"queuefield": "",
	}
	for name := range negatableCommands {
		script, ok := inverted[name]
		if !ok {
			t.Errorf("negatable command %s has no line here saying how its negation is checked", name)
			continue
		}
		if script == "" {
			continue
		}
		if failed, log := runScriptLine(t, script); failed {
			t.Errorf("`! %s` on a call that fails must pass; log:\n%s", name, log)
		}
	}
}

// runScriptLine runs one script with the scripts' commands through testscript, and reports
// whether it failed and what it logged.
func runScriptLine(t *testing.T, script string) (failed bool, log string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "line.txtar"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &recordingT{}
	testscript.RunT(rec, testscript.Params{
		Dir:                 dir,
		WorkdirRoot:         t.TempDir(),
		Setup:               setupScript,
		Cmds:                scriptCmds(),
		RequireExplicitExec: true,
	})
	return rec.failed(), rec.log()
}

// recordingT is a testscript.T that records a failure instead of failing the test.
type recordingT struct {
	mu    sync.Mutex
	fail  bool
	lines strings.Builder
}

func (r *recordingT) Skip(args ...any) { r.Log(args...); runtime.Goexit() }
func (r *recordingT) Fatal(args ...any) {
	r.Log(args...)
	r.FailNow()
}
func (r *recordingT) Parallel() {}
func (r *recordingT) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(&r.lines, args...)
}
func (r *recordingT) FailNow() {
	r.mu.Lock()
	r.fail = true
	r.mu.Unlock()
	runtime.Goexit()
}
func (r *recordingT) Verbose() bool { return false }

// Run runs a sub-test on a goroutine of its own, so that FailNow's Goexit ends only it.
func (r *recordingT) Run(_ string, f func(testscript.T)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

func (r *recordingT) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fail
}

func (r *recordingT) log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lines.String()
}
