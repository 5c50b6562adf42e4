package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDoctorCodexAppServer(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(home, "codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(codexHome, "config.toml")
	d := &doctor{getenv: func(k string) string { return map[string]string{"HOME": home, "CODEX_HOME": codexHome}[k] }}
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.codexAppServer(); got != nil {
		t.Errorf("no Codex config: %+v", got)
	}
	write("model = \"o3\"\n")
	if got := d.codexAppServer(); got != nil {
		t.Errorf("Trail Boss not in Codex's config: %+v", got)
	}
	applyCodex(t, path, false)
	if got := d.codexAppServer(); len(got) != 1 || got[0].level != good {
		t.Errorf("after setup --codex: %+v", got)
	}
	b, _ := os.ReadFile(path)
	write(strings.Replace(string(b), "daemon_auto_start = false", "daemon_auto_start = true", 1))
	if got := d.codexAppServer(); len(got) != 1 || got[0].level != note || got[0].fix != "trailboss setup --codex" {
		t.Errorf("daemon_auto_start = true: %+v", got)
	}

	// A shared app-server of this CODEX_HOME is running: something that looks like one, a
	// copy of bash named codex under CODEX_HOME/packages, that runs the script "app-server".
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip(err)
	}
	bin := filepath.Join(codexHome, "packages", "bin", "codex")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, bash, bin, 0o755)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app-server"), []byte("sleep 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := exec.Command(bin, "app-server", "--listen", "unix://", "--managed-daemon")
	fake.Dir = dir
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Process.Kill(); fake.Wait() })
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(sharedCodexAppServers(codexHome), fake.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the running app-server %d was not found", fake.Process.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if other := sharedCodexAppServers(filepath.Join(home, "elsewhere")); slices.Contains(other, fake.Process.Pid) {
		t.Errorf("an app-server of another CODEX_HOME was counted")
	}
	got := d.codexAppServer()
	if len(got) != 1 || got[0].level != bad || !strings.Contains(got[0].what, "running") ||
		!strings.HasPrefix(got[0].fix, "trailboss setup --codex") || !strings.Contains(got[0].fix, "codex app-server daemon stop") {
		t.Errorf("running, daemon_auto_start = true: %+v", got)
	}
	write(string(b))
	if got := d.codexAppServer(); len(got) != 1 || got[0].level != bad || !strings.HasPrefix(got[0].fix, "codex app-server daemon stop") {
		t.Errorf("running, daemon_auto_start = false: %+v", got)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}
