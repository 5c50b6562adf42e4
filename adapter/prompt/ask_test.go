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

// KeyedAskOf keeps an approval dialog's own menu keys, which AskOf makes allow / deny, and
// finds no Ask in a menu without keys.
func TestKeyedAskOfKeepsTheScreensKeys(t *testing.T) {
	r := Result{Kind: MultipleChoice, Screen: ScreenPermission, Question: "Do you want to proceed?",
		Choices: []Choice{{"1", "Yes"}, {"2", "No"}}}
	if ask := AskOf(r, adapter.AskFromPTY); ask.Kind != adapter.AskPermission {
		t.Fatalf("AskOf: kind %q, want %q", ask.Kind, adapter.AskPermission)
	}
	ask := KeyedAskOf(r, adapter.AskFromPTY)
	if ask == nil || ask.Kind != adapter.AskMenu || len(ask.Choices) != 2 || ask.Choices[0].Key != "1" || ask.Choices[1].Key != "2" {
		t.Fatalf("KeyedAskOf = %+v, want a menu keyed 1, 2", ask)
	}
	r.Choices = []Choice{{"", "Yes"}, {"", "No"}}
	if ask := KeyedAskOf(r, adapter.AskFromPTY); ask != nil {
		t.Errorf("KeyedAskOf of an unnumbered menu = %+v, want nil", ask)
	}
}
