package hotcmd

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hot verb's command line: -h is help and exit 0; a bad flag or a stray argument is a
// usage error (exit 2) that says where the help is; an unknown verb says to run trailboss.
func TestCommandLinesGetTheRightExitAndWords(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stdout string // in what the command printed
		stderr string // in "trailboss: …"
	}{
		{[]string{"status", "--help"}, 0, "", "Usage: trailboss status"},
		{[]string{"jump-next", "-h"}, 0, "", "--client"},
		{[]string{"status", "--bogus"}, 2, "", "flag provided but not defined: -bogus (see trailboss status --help)"},
		{[]string{"skip", "extra"}, 2, "", `skip takes no arguments, got "extra"`},
		{[]string{"ls"}, 2, "", "trailboss-hot runs only emit, status, jump-next and skip; run trailboss ls"},
		{nil, 2, "", "no command given"},
	} {
		var out, errb bytes.Buffer
		e := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
		code := ExitCode(Run(context.Background(), e, c.args), &errb)
		if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d with %q / %q",
				c.args, code, out.String(), errb.String(), c.code, c.stdout, c.stderr)
		}
	}
}

// ParseArgs takes flags before and after the arguments, and refuses more than it allows.
func TestParseArgsTakesFlagsAnywhere(t *testing.T) {
	fs := flag.NewFlagSet("reply", flag.ContinueOnError)
	choice := fs.String("choice", "", "")
	rest, err := ParseArgs(fs, []string{"p1", "--choice", "allow", "yes"}, &bytes.Buffer{}, 2, usage)
	if err != nil || *choice != "allow" || strings.Join(rest, ",") != "p1,yes" {
		t.Fatalf("rest %q, choice %q, err %v", rest, *choice, err)
	}
	if _, err := ParseArgs(fs, []string{"a", "b", "c"}, &bytes.Buffer{}, 2, usage); !errors.Is(err, ErrUsage) {
		t.Fatalf("three arguments where two are allowed: err %v", err)
	}
}

// Where the daemon is: a flag wins over TRAILBOSS_ADDR, which wins over config.toml's addr;
// with none, the unix socket in the state directory.
func TestPlaceResolvesFlagThenEnvThenConfigThenSocket(t *testing.T) {
	cfgHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgHome, "trailboss"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_CONFIG_HOME": cfgHome, "TRAILBOSS_STATE_DIR": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	t.Setenv("TRAILBOSS_STATE_DIR", env["TRAILBOSS_STATE_DIR"])
	t.Setenv("XDG_CONFIG_HOME", cfgHome)

	resolve := func(flagAddr string) Place {
		p := Place{Addr: flagAddr}
		if err := p.Resolve(getenv); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := resolve(""); p.Addr != "" || p.AddrFrom != "socket" {
		t.Errorf("nothing set: %+v, want the socket", p)
	}
	if err := os.WriteFile(filepath.Join(cfgHome, "trailboss", "config.toml"), []byte("addr = \"127.0.0.1:7001\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := resolve(""); p.Addr != "127.0.0.1:7001" || p.AddrFrom != "config" {
		t.Errorf("config only: %+v", p)
	}
	env["TRAILBOSS_ADDR"] = "127.0.0.1:7002"
	if p := resolve(""); p.Addr != "127.0.0.1:7002" || p.AddrFrom != "env" {
		t.Errorf("env over config: %+v", p)
	}
	if p := resolve("127.0.0.1:7003"); p.Addr != "127.0.0.1:7003" || p.AddrFrom != "flag" {
		t.Errorf("flag over env: %+v", p)
	}
}
