package tmuxctl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

func TestParseStatPPID(t *testing.T) {
	tests := []struct {
		stat string
		want int
		ok   bool
	}{
		{"1234 (sleep) S 1200 1234 1200 0 -1 4194304 95 0 0 0", 1200, true},
		{"1234 (my prog) R 77 1 1", 77, true},
		{"1234 (a) b) S 5 1", 5, true},
		{"1234 ()) (x) 9) Z 42 0", 42, true},
		{"1 (systemd) S 0 1 1 0", 0, true},
		{"1234 (sleep S 1200", 0, false},
		{"1234 (sleep)", 0, false},
		{"1234 (sleep) S", 0, false},
		{"1234 (sleep) S x", 0, false},
		{"1234 (sleep) S -3", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, err := parseStatPPID(tt.stat)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseStatPPID(%q) = %d, %v; want %d, ok=%v", tt.stat, got, err, tt.want, tt.ok)
		}
	}
}

func TestPaneOfPID(t *testing.T) {
	panes := []Pane{
		{ID: "%1", PID: 100},
		{ID: "%2", PID: 200},
		{ID: "%3", PID: 300, Dead: true},
		{ID: "%4", PID: 6000 + maxAncestors},
	}
	// 1 ← 100 ← 110 ← 111;  1 ← 200;  1 ← 300 ← 310;  1 ← 900;  a long chain from 5000.
	parents := map[int]int{1: 0, 100: 1, 110: 100, 111: 110, 200: 1, 300: 1, 310: 300, 900: 1}
	for i := 5000; i < 5000+maxAncestors+5; i++ {
		parents[i] = i + 1
	}
	parents[5000+maxAncestors+5] = 100
	for i := 6000; i < 6000+maxAncestors; i++ {
		parents[i] = i + 1
	}
	parent := func(pid int) (int, error) {
		p, ok := parents[pid]
		if !ok {
			return 0, fmt.Errorf("read /proc/%d/stat: %w", pid, fs.ErrNotExist)
		}
		return p, nil
	}
	tests := []struct {
		pid     int
		want    string
		wantErr error
	}{
		{pid: 100, want: "%1"},
		{pid: 111, want: "%1"},
		{pid: 200, want: "%2"},
		{pid: 310, wantErr: ErrNoPane}, // its pane is dead: the pid may be reused
		{pid: 900, wantErr: ErrNoPane},
		{pid: 5000, wantErr: ErrNoPane}, // the pane is further up than the walk goes
		{pid: 6000, want: "%4"},         // the pane is as far up as the walk goes
		{pid: 4242, wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		got, err := paneOfPID(panes, tt.pid, parent)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("paneOfPID(%d) = %q, %v; want error %v", tt.pid, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("paneOfPID(%d) = %q, %v; want %q", tt.pid, got, err, tt.want)
		}
	}

	// A parent that vanishes mid-walk ends it; any other failure is reported.
	parents[111] = 150
	if _, err := paneOfPID(panes, 111, parent); !errors.Is(err, ErrNoPane) {
		t.Errorf("vanished parent: %v, want ErrNoPane", err)
	}
	broken := func(int) (int, error) { return 0, errors.New("garbled stat") }
	if _, err := paneOfPID(panes, 111, broken); err == nil || errors.Is(err, ErrNoPane) ||
		!strings.Contains(err.Error(), "garbled") {
		t.Errorf("broken /proc: %v, want the read error", err)
	}
}

func TestProcParentOfSelf(t *testing.T) {
	// Our own stat is real /proc text; its parent is whoever ran the test binary.
	ppid, err := procParent(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if ppid != os.Getppid() {
		t.Errorf("procParent(self) = %d, want %d", ppid, os.Getppid())
	}
}
