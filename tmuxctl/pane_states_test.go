package tmuxctl

import (
	"strings"
	"testing"
)

func TestParsePaneStates(t *testing.T) {
	end := sep + "tbxEND"
	rec := func(f ...string) string { return strings.Join(f, sep) + end + "\n" }
	got, err := parsePaneStates(rec("%1", "0", "10,2,3", "1700000000", "4242", "claude")+
		rec("%22", "1", "0,0,0", "1", "0", "we\x1fird\nname"), end)
	if err != nil {
		t.Fatal(err)
	}
	want := PaneState{ID: "%1", Drawn: "10,2,3", Activity: 1700000000, PID: 4242, Command: "claude"}
	if len(got) != 2 || got[0] != want || got[1].ID != "%22" || !got[1].Dead || got[1].Command != "we\x1fird\nname" {
		t.Fatalf("got %+v", got)
	}
	for _, bad := range []string{
		rec("%1", "0", "10,2", "1", "1", "sh"),                                // two numbers
		rec("%1", "0", "a,b,c", "1", "1", "sh"),                               // not numbers
		rec("%1", "0", "1,-2,3", "1", "1", "sh"),                              // a sign
		rec("%1", "0", "1,2,3", "x", "1", "sh"),                               // activity not a number
		rec("%1", "0", "1,2,3", "-5", "1", "sh"),                              // activity before 1970
		rec("%1", "0", "1,2,3", "1", "pid", "sh"),                             // pid not a number
		rec("1", "0", "1,2,3", "1", "1", "sh"),                                // not a pane id
		rec("%1", "x", "1,2,3", "1", "1", "sh"),                               // not a flag
		rec("%1", "0", "1,2,3", "1", "1"),                                     // a field short
		"%1" + sep + "0" + sep + "1,2,3" + sep + "1" + sep + "1" + sep + "sh", // no record end
	} {
		if _, err := parsePaneStates(bad, end); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if got, err := parsePaneStates("", end); err != nil || got != nil {
		t.Errorf("empty: %v %v", got, err)
	}
}

func FuzzParsePaneStates(f *testing.F) {
	end := sep + "tbxEND"
	f.Add("%1" + sep + "0" + sep + "1,2,3" + sep + "4" + sep + "5" + sep + "claude" + end + "\n")
	f.Fuzz(func(t *testing.T, out string) {
		states, err := parsePaneStates(out, end)
		if err != nil {
			return
		}
		for _, s := range states {
			if !strings.HasPrefix(s.ID, "%") || s.Activity < 0 || s.PID < 0 {
				t.Fatalf("bad state %+v", s)
			}
		}
	})
}
