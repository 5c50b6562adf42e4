package tmuxstatus

import "testing"

func TestText(t *testing.T) {
	for _, tt := range []struct {
		stuck, cooling int
		want           string
	}{
		{0, 0, ""},
		{1, 0, "⚠ 1 stuck"},
		{3, 1, "⚠ 2 stuck · 1 cooling"},
		{2, 2, ""}, // only cooling items: the queue presents as empty
	} {
		if got := Text(tt.stuck, tt.cooling); got != tt.want {
			t.Errorf("Text(%d, %d) = %q, want %q", tt.stuck, tt.cooling, got, tt.want)
		}
	}
}
