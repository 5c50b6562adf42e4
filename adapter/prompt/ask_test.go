package prompt

import (
	"testing"

	"github.com/trailboss/trailboss/adapter"
)

// A screen that asks for a password makes a secret free-text Ask, so that its record is
// answered at the keyboard only; a screen asking for other text does not.
func TestAskOfKeepsTheSecretFlag(t *testing.T) {
	for screen, secret := range map[string]bool{
		"$ sudo apt upgrade\n[sudo] password for deploy: ":  true,
		"Enter passphrase for key '/home/me/.ssh/id_rsa': ": true,
		"Paste your API key: ":                              true,
		"Enter a commit message: ":                          false,
	} {
		ask := AskOf(Classify(screen), adapter.AskFromScreen)
		if ask == nil || ask.Kind != adapter.AskFreeText {
			t.Fatalf("%q: ask %+v, want free text", screen, ask)
		}
		if ask.Secret != secret {
			t.Errorf("%q: secret %v, want %v", screen, ask.Secret, secret)
		}
	}
}
