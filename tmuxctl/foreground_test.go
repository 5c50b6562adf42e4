package tmuxctl

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeProc writes a /proc of processes for the readers here: pid → stat line, cmdline
// (NUL-separated), comm, and the children of each thread.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) fakeProc { return fakeProc{t, t.TempDir()} }

func (p fakeProc) add(pid, ppid, tpgid int, comm string, argv []string, threads map[int][]int) {
	p.t.Helper()
	dir := filepath.Join(p.root, strconv.Itoa(pid))
	stat := strconv.Itoa(pid) + " (" + comm + ") S " + strconv.Itoa(ppid) + " " + strconv.Itoa(pid) +
		" 1 34816 " + strconv.Itoa(tpgid) + " 4194560 0 0"
	files := map[string]string{"stat": stat, "comm": comm + "\n",
		"cmdline": strings.Join(argv, "\x00") + "\x00"}
	for tid, kids := range threads {
		var ks []string
		for _, k := range kids {
			ks = append(ks, strconv.Itoa(k))
		}
		files[filepath.Join("task", strconv.Itoa(tid), "children")] = strings.Join(ks, " ") + " "
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
}

func TestForegroundGroupAndChildCommands(t *testing.T) {
	p := newFakeProc(t)
	// A pane's bash (100) runs npm's codex: node (200, the foreground group) spawned the
	// native binary (210) from its main thread and a helper (220) from another thread.
	p.add(100, 1, 200, "bash", []string{"bash"}, map[int][]int{100: {200}})
	p.add(200, 100, 200, "node", []string{"node", "/x/.bin/codex"}, map[int][]int{200: {210}, 201: {220}, 202: nil})
	p.add(210, 200, 200, "codex", []string{"/x/vendor/codex"}, nil)
	p.add(220, 200, 200, "my helper", []string{"helper"}, nil)
	// A shell without a terminal, and one whose foreground leader is gone.
	p.add(300, 1, -1, "bash", []string{"bash"}, nil)
	p.add(400, 1, 999, "bash", []string{"bash"}, nil)

	pgid, err := foregroundGroup(p.root, 100)
	names, cerr := childCommands(p.root, pgid)
	slices.Sort(names)
	if err != nil || cerr != nil || pgid != 200 || !slices.Equal(names, []string{"codex", "my helper"}) {
		t.Errorf("npm's codex: pgid %d, children %q, %v, %v", pgid, names, err, cerr)
	}
	if pgid, err := foregroundGroup(p.root, 300); err != nil || pgid != 0 {
		t.Errorf("no terminal: %d %v", pgid, err)
	}
	if names, err := childCommands(p.root, 999); err != nil || names != nil {
		t.Errorf("leader gone: %q %v", names, err)
	}
	if _, err := foregroundGroup(p.root, 555); err == nil {
		t.Error("a pid that does not exist: no error")
	}
}

func TestChildrenOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	// Not in a terminal's foreground (go test may have none): only the parsing of a real stat.
	if _, err := ForegroundGroup(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	kids, err := children("/proc", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	after, err := children("/proc", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if _, statErr := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children"); statErr != nil {
		t.Skip("the kernel has no /proc/PID/task/TID/children")
	}
	if !slices.Contains(after, cmd.Process.Pid) || slices.Contains(kids, cmd.Process.Pid) {
		t.Errorf("children before %v, after %v; want the new sleep %d among them only after", kids, after, cmd.Process.Pid)
	}
}

func TestParseStatTPGID(t *testing.T) {
	tests := []struct {
		stat string
		want int
		ok   bool
	}{
		{"1234 (node) S 1200 1234 1200 34816 1234 4194304", 1234, true},
		{"1234 (a) b) S 5 1 1 0 -1 0", -1, true},
		{"1234 (node) S 1200 1234 1200 34816", 0, false},
		{"1234 (node) S 1200 1234 1200 34816 x", 0, false},
		{"1234 node S 1 2 3 4 5", 0, false},
	}
	for _, tt := range tests {
		got, err := parseStatTPGID(tt.stat)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseStatTPGID(%q) = %d, %v; want %d, ok=%v", tt.stat, got, err, tt.want, tt.ok)
		}
	}
}

func TestNearestAncestor(t *testing.T) {
	p := newFakeProc(t)
	// 500 (a hook's shell) ← 400 (codex app-server) ← 300 (codex) ← 200 (node) ← 100 (bash)
	p.add(100, 1, 100, "bash", []string{"bash"}, nil)
	p.add(200, 100, 200, "node", []string{"node", "/x/.bin/codex"}, nil)
	p.add(300, 200, 200, "codex", []string{"/x/codex"}, nil)
	p.add(400, 300, -1, "codex", []string{"/h/.codex/packages/bin/codex", "app-server", "--listen", "unix://"}, nil)
	p.add(500, 400, -1, "sh", []string{"/bin/sh", "-c", "trailboss emit --codex"}, nil)
	p.add(600, 9999, -1, "sh", []string{"sh"}, nil) // an orphan whose parent is unreadable
	codex := func(argv []string) bool { return filepath.Base(argv[0]) == "codex" }
	if pid, argv := nearestAncestor(p.root, 500, 3, codex); pid != 400 || len(argv) != 4 || argv[1] != "app-server" {
		t.Errorf("hook under the app-server: %d %q, want 400 and its argv", pid, argv)
	}
	if pid, _ := nearestAncestor(p.root, 400, 3, codex); pid != 300 {
		t.Errorf("the app-server itself is not its own ancestor: got %d, want its parent 300", pid)
	}
	if pid, _ := nearestAncestor(p.root, 500, 1, func(argv []string) bool { return argv[0] == "bash" }); pid != 0 {
		t.Errorf("beyond the depth: got %d", pid)
	}
	if pid, _ := nearestAncestor(p.root, 500, 4, func(argv []string) bool { return argv[0] == "bash" }); pid != 100 {
		t.Errorf("within the depth: got %d, want 100", pid)
	}
	if pid, argv := nearestAncestor(p.root, 600, 3, codex); pid != 0 || argv != nil {
		t.Errorf("orphan: got %d %q", pid, argv)
	}

	// The real thing: a child of this test finds this test's process.
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	self := func(argv []string) bool { return len(argv) > 0 && argv[0] == os.Args[0] }
	if got, _ := NearestAncestor(cmd.Process.Pid, 1, self); got != os.Getpid() {
		t.Errorf("NearestAncestor(a child of ours) = %d, want %d", got, os.Getpid())
	}
}
