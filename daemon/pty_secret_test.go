package daemon

import (
	"testing"

	"github.com/trailboss/trailboss/daemon/wire"
)

// A password prompt reported by trailboss run makes a secret record, whether the
// supervisor says so or (an older one) does not; other text prompts are not secret.
func TestPTYPasswordPromptIsSecret(t *testing.T) {
	for _, tt := range []struct {
		rep  wire.PTYPromptReport
		want bool
	}{
		{wire.PTYPromptReport{Kind: wire.KindFreeText, Question: "[sudo] password for deploy:", Secret: true}, true},
		{wire.PTYPromptReport{Kind: wire.KindFreeText, Question: "[sudo] password for deploy:"}, true},
		{wire.PTYPromptReport{Kind: wire.KindFreeText, Question: "Enter a commit message:"}, false},
	} {
		ask, err := ptyAsk(&tt.rep)
		if err != nil {
			t.Fatal(err)
		}
		if ask.Secret != tt.want {
			t.Errorf("%+v: secret %v, want %v", tt.rep, ask.Secret, tt.want)
		}
	}
}
