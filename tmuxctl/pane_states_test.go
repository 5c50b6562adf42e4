package tmuxctl

import (
	"strings"
	"testing"
)

func TestParsePaneStates(t *testing.T) {
	end := sep + "tbxEND"
	rec := func(f ...string) string { return strings.Join(f, sep) + end + "\n" }
	got, err := parsePaneStates(rec("%1", "0", "10,2,3,1700000000", "claude")+rec("%22", "1", "0,0,0,1", "we\x1fird\nname"), end)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (PaneState{ID: "%1", Changed: "10,2,3,1700000000", Command: "claude"}) ||
		got[1].ID != "%22" || !got[1].Dead || got[1].Command != "we\x1fird\nname" {
		t.Fatalf("got %+v", got)
	}
	for _, bad := range []string{
		rec("%1", "0", "10,2,3", "sh"),                  // three numbers
		rec("%1", "0", "a,b,c,d", "sh"),                 // not numbers
		rec("1", "0", "1,2,3,4", "sh"),                  // not a pane id
		rec("%1", "x", "1,2,3,4", "sh"),                 // not a flag
		rec("%1", "0", "1,2,3,4"),                       // a field short
		"%1" + sep + "0" + sep + "1,2,3,4" + sep + "sh", // no record end
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
	f.Add("%1" + sep + "0" + sep + "1,2,3,4" + sep + "claude" + end + "\n")
	f.Fuzz(func(t *testing.T, out string) {
		states, err := parsePaneStates(out, end)
		if err != nil {
			return
		}
		for _, s := range states {
			if !strings.HasPrefix(s.ID, "%") {
				t.Fatalf("bad id %q", s.ID)
			}
		}
	})
}
