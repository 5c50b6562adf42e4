package tmuxctl

import (
	"strings"
	"testing"
)

func TestParsePaneStates(t *testing.T) {
	end := sep + "tbxEND"
	rec := func(f ...string) string { return strings.Join(f, sep) + end + "\n" }
	got, err := parsePaneStates(rec("%1", "0", "10,2,3", "1700000000")+rec("%22", "1", "0,0,0", "1"), end)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (PaneState{ID: "%1", Drawn: "10,2,3", Activity: 1700000000}) ||
		got[1] != (PaneState{ID: "%22", Dead: true, Drawn: "0,0,0", Activity: 1}) {
		t.Fatalf("got %+v", got)
	}
	for _, bad := range []string{
		rec("%1", "0", "10,2", "1"),                  // two numbers
		rec("%1", "0", "a,b,c", "1"),                 // not numbers
		rec("%1", "0", "1,-2,3", "1"),                // a sign
		rec("%1", "0", "1,2,3", "x"),                 // activity not a number
		rec("%1", "0", "1,2,3", "-5"),                // activity before 1970
		rec("%1", "0", "1,2,3", "1,2"),               // more than a time
		rec("1", "0", "1,2,3", "1"),                  // not a pane id
		rec("%1", "x", "1,2,3", "1"),                 // not a flag
		rec("%1", "0", "1,2,3"),                      // a field short
		"%1" + sep + "0" + sep + "1,2,3" + sep + "1", // no record end
	} {
		if _, err := parsePaneStates(bad, end); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if got, err := parsePaneStates("", end); err != nil || got != nil {
		t.Errorf("empty: %v %v", got, err)
	}
}

func TestParsePaneProcesses(t *testing.T) {
	end := sep + "tbxEND"
	rec := func(f ...string) string { return strings.Join(f, sep) + end + "\n" }
	got, err := parsePaneProcesses(rec("%1", "0", "4242", "node")+rec("%22", "1", "0", "we\x1fird\nname"), end)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (PaneProcess{ID: "%1", PID: 4242, Command: "node"}) ||
		got[1] != (PaneProcess{ID: "%22", Dead: true, Command: "we\x1fird\nname"}) {
		t.Fatalf("got %+v", got)
	}
	for _, bad := range []string{
		rec("%1", "0", "pid", "sh"), // pid not a number
		rec("%1", "0", "-1", "sh"),  // a sign
		rec("%1", "2", "1", "sh"),   // not a flag
		rec("x1", "0", "1", "sh"),   // not a pane id
		rec("%1", "0", "1"),         // a field short
	} {
		if _, err := parsePaneProcesses(bad, end); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func FuzzParsePaneStates(f *testing.F) {
	end := sep + "tbxEND"
	f.Add("%1" + sep + "0" + sep + "1,2,3" + sep + "4" + end + "\n")
	f.Fuzz(func(t *testing.T, out string) {
		states, err := parsePaneStates(out, end)
		if err != nil {
			return
		}
		for _, s := range states {
			if !strings.HasPrefix(s.ID, "%") || s.Activity < 0 {
				t.Fatalf("bad state %+v", s)
			}
		}
	})
}
