package tmuxctl

import "testing"

func TestLiteralMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"#{pane_id}", "##{pane_id}"},
		{"#(rm -rf ~)", "##(rm -rf ~)"},
		{"##", "####"},
		{"100% at %H:%M", "100%% at %%H:%%M"},
		{"#[fg=red]%", "##[fg=red]%%"},
	}
	for _, tt := range tests {
		if got := literalMessage(tt.in); got != tt.want {
			t.Errorf("literalMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
