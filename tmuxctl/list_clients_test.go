package tmuxctl

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func line(fields ...string) string { return strings.Join(fields, sep) + "\n" }

func TestParseClients(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    []Client
		wantErr string
	}{
		{name: "none", out: "", want: nil},
		{
			name: "two clients",
			out: line("/dev/pts/4", "/dev/pts/4", "3214", "main", "%3", "1795252481", "attached,focused,UTF-8") +
				line("client-77", "", "77", "we\\037ird", "%10", "0", "attached,control-mode,UTF-8"),
			want: []Client{
				{Name: "/dev/pts/4", TTY: "/dev/pts/4", PID: 3214, SessionName: "main", PaneID: "%3", Activity: time.Unix(1795252481, 0)},
				{Name: "client-77", PID: 77, SessionName: "we\\037ird", PaneID: "%10", Activity: time.Unix(0, 0)},
			},
		},
		{
			name: "a control client sent no output is left out; one of a terminal emulator is not",
			out: line("client-9", "", "9", "main", "%3", "5", "attached,focused,control-mode,ignore-size,no-output,UTF-8") +
				line("client-8", "", "8", "main", "%3", "5", "attached,control-mode,UTF-8") +
				line("/dev/pts/4", "/dev/pts/4", "4", "main", "%3", "5", ""),
			want: []Client{
				{Name: "client-8", PID: 8, SessionName: "main", PaneID: "%3", Activity: time.Unix(5, 0)},
				{Name: "/dev/pts/4", TTY: "/dev/pts/4", PID: 4, SessionName: "main", PaneID: "%3", Activity: time.Unix(5, 0)},
			},
		},
		{name: "no final newline", out: "/dev/pts/4\x1f/dev/pts/4\x1f1\x1fmain\x1f%3\x1f1\x1f", wantErr: "newline"},
		{name: "too few fields", out: line("/dev/pts/4", "/dev/pts/4", "1", "main", "%3", "1"), wantErr: "6 fields"},
		{name: "too many fields", out: line("/dev/pts/4", "/dev/pts/4", "1", "main", "%3", "1", "", "x"), wantErr: "8 fields"},
		{name: "blank line", out: "\n", wantErr: "1 fields"},
		{name: "empty name", out: line("", "/dev/pts/4", "1", "main", "%3", "1", ""), wantErr: "empty client name"},
		{name: "bad pid", out: line("/dev/pts/4", "/dev/pts/4", "0", "main", "%3", "1", ""), wantErr: "pid"},
		{name: "bad pane", out: line("/dev/pts/4", "/dev/pts/4", "1", "main", "", "1", ""), wantErr: "pane id"},
		{name: "bad activity", out: line("/dev/pts/4", "/dev/pts/4", "1", "main", "%3", "-1", ""), wantErr: "activity"},
		{name: "huge activity", out: line("/dev/pts/4", "/dev/pts/4", "1", "main", "%3", "99999999999999999999", ""), wantErr: "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseClients(tt.out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseClients error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseClients =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func FuzzParseClients(f *testing.F) {
	f.Add(line("/dev/pts/4", "/dev/pts/4", "3214", "main", "%3", "1795252481", "attached"))
	f.Add("")
	f.Add("\n\n")
	f.Fuzz(func(t *testing.T, out string) {
		clients, err := parseClients(out)
		if err != nil {
			return
		}
		for _, c := range clients {
			if c.Name == "" || c.PID <= 0 || c.PaneID == "" {
				t.Errorf("invalid client accepted: %+v", c)
			}
		}
	})
}
