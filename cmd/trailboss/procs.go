package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// proc is one live process as /proc shows it.
type proc struct {
	pid  int
	argv []string
}

// liveProcs returns the processes of this machine other than this one that are alive (not
// zombies waiting to be reaped). It reads /proc; where there is none it returns none.
func liveProcs() []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // it exited meanwhile
		}
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue // gone, or a kernel thread
		}
		out = append(out, proc{pid: pid, argv: strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")})
	}
	return out
}

func (p proc) String() string { return fmt.Sprintf("%d %q", p.pid, p.argv) }

// env returns the value of key in the environment p started with, or "".
func (p proc) env(key string) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "environ"))
	if err != nil {
		return ""
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
