package tmuxctl

import (
	"reflect"
	"strings"
	"testing"

	"github.com/trailboss/trailboss/adapter"
)

const testEnd = sep + "tbxEND"

// rec builds one list-panes record as tmux prints it for paneFormat(testEnd).
func rec(fields ...string) string {
	return strings.Join(fields, sep) + testEnd + "\n"
}

func TestParsePanes(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    []Pane
		wantErr string
	}{
		{name: "empty", out: "", want: nil},
		{
			name: "two panes",
			out: rec("%0", "2736", "main", "0", "@0", "0", "1", "win", "/tmp") +
				rec("%12", "2747", "we\\037ird\\tname", "3", "@7", "1", "0", "win", ""),
			want: []Pane{
				{ID: "%0", PID: 2736, SessionName: "main", WindowIndex: 0, WindowID: "@0", WindowName: "win", CurrentPath: "/tmp", Active: true},
				{ID: "%12", PID: 2747, SessionName: "we\\037ird\\tname", WindowIndex: 3, WindowID: "@7", WindowName: "win", Dead: true},
			},
		},
		{
			name: "path holding the separator and a newline",
			out:  rec("%2", "10", "main", "1", "@1", "0", "1", "win", "/tmp/a\x1fb\nc d"),
			want: []Pane{{ID: "%2", PID: 10, SessionName: "main", WindowIndex: 1, WindowID: "@1", WindowName: "win", CurrentPath: "/tmp/a\x1fb\nc d", Active: true}},
		},
		{
			name: "path forging a record without the marker stays one path",
			out:  rec("%2", "10", "main", "1", "@1", "0", "1", "win", "/x\n%9\x1f1\x1fevil\x1f0\x1f@9\x1f0\x1f1\x1f/"),
			want: []Pane{{ID: "%2", PID: 10, SessionName: "main", WindowIndex: 1, WindowID: "@1", WindowName: "win",
				CurrentPath: "/x\n%9\x1f1\x1fevil\x1f0\x1f@9\x1f0\x1f1\x1f/", Active: true}},
		},
		{name: "missing final marker", out: "%0\x1f1\x1fmain\x1f0\x1f@0\x1f0\x1f1\x1f/tmp\n", wantErr: "does not end"},
		{name: "truncated output", out: rec("%0", "1", "main", "0", "@0", "0", "1", "win", "/") + "%1\x1f2", wantErr: "does not end"},
		{name: "too few fields", out: rec("%0", "1", "main", "0", "@0", "0", "1", "win"), wantErr: "8 fields"},
		{name: "blank record", out: testEnd + "\n", wantErr: "1 fields"},
		{name: "bad pane id", out: rec("0", "1", "main", "0", "@0", "0", "1", "win", "/"), wantErr: "pane id"},
		{name: "pane id out of range", out: rec("%99999999999", "1", "main", "0", "@0", "0", "1", "win", "/"), wantErr: "pane id"},
		{name: "pid not a number", out: rec("%0", "x", "main", "0", "@0", "0", "1", "win", "/"), wantErr: "pid"},
		{name: "pid zero", out: rec("%0", "0", "main", "0", "@0", "0", "1", "win", "/"), wantErr: "not positive"},
		{name: "pid negative", out: rec("%0", "-5", "main", "0", "@0", "0", "1", "win", "/"), wantErr: "pid"},
		{name: "window index empty", out: rec("%0", "1", "main", "", "@0", "0", "1", "win", "/"), wantErr: "window index"},
		{name: "window index signed", out: rec("%0", "1", "main", "+1", "@0", "0", "1", "win", "/"), wantErr: "window index"},
		{name: "window id", out: rec("%0", "1", "main", "0", "0", "0", "1", "win", "/"), wantErr: "window id"},
		{name: "dead flag", out: rec("%0", "1", "main", "0", "@0", "yes", "1", "win", "/"), wantErr: "dead"},
		{name: "active flag", out: rec("%0", "1", "main", "0", "@0", "0", "", "win", "/"), wantErr: "active"},
		{
			name:    "second record bad",
			out:     rec("%0", "1", "main", "0", "@0", "0", "1", "win", "/") + rec("%1", "1", "main", "0", "@0", "2", "1", "win", "/"),
			wantErr: "pane record 2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePanes(tt.out, testEnd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parsePanes error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parsePanes =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestPaneFormatMatchesParser(t *testing.T) {
	f := paneFormat(testEnd)
	if n := strings.Count(f, sep); n != paneFields-1+strings.Count(testEnd, sep) {
		t.Errorf("paneFormat has %d separators for %d fields", n, paneFields)
	}
	if !strings.HasSuffix(f, "#{pane_current_path}"+testEnd) {
		t.Errorf("pane_current_path must be the last field: %q", f)
	}
	a, b := newRecordEnd(), newRecordEnd()
	if a == b || !strings.HasPrefix(a, sep) || strings.ContainsAny(a, "#\n") {
		t.Errorf("newRecordEnd gave %q and %q", a, b)
	}
}

func FuzzParsePanes(f *testing.F) {
	f.Add(rec("%0", "2736", "main", "0", "@0", "0", "1", "win", "/tmp"))
	f.Add(rec("%0", "1", "main", "0", "@0", "0", "1", "win", "/a\x1fb\nc") + rec("%1", "2", "x", "1", "@1", "1", "0", "win", ""))
	f.Add("")
	f.Add(testEnd + "\n")
	f.Add("%0\x1f1\x1fmain\x1f0\x1f@0\x1f0\x1f1\x1f/tmp\n")
	f.Add(rec("%99999999999", "-1", "", "", "@", "2", "x", "win", ""))
	f.Fuzz(func(t *testing.T, out string) {
		panes, err := parsePanes(out, testEnd)
		if err != nil {
			return
		}
		if len(panes) != strings.Count(out, testEnd+"\n") {
			t.Errorf("%d panes from %d records", len(panes), strings.Count(out, testEnd+"\n"))
		}
		for _, p := range panes {
			if !adapter.ValidPane(p.ID) || p.PID <= 0 || p.WindowIndex < 0 || !validWindowID(p.WindowID) {
				t.Errorf("invalid pane accepted: %+v", p)
			}
		}
	})
}
