package tmuxctl

import "testing"

func TestValidUserOption(t *testing.T) {
	for _, name := range []string{"@trailboss_test", "@a", "@tb-queue-2"} {
		if !validUserOption(name) {
			t.Errorf("validUserOption(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"", "@", "status-right", "trailboss", "@a b", "@a;", "@x\n", "-@a", "@é"} {
		if validUserOption(name) {
			t.Errorf("validUserOption(%q) = true, want false", name)
		}
	}
}
