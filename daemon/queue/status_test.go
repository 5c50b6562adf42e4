package queue

import "testing"

func TestStatusText(t *testing.T) {
	for _, tt := range []struct {
		stuck, cooling int
		want           string
	}{
		{0, 0, ""},
		{1, 0, "⚠ 1 stuck"},
		{3, 1, "⚠ 2 stuck · 1 cooling"},
		{2, 2, ""}, // only cooling items: the queue presents as empty
	} {
		if got := StatusText(tt.stuck, tt.cooling); got != tt.want {
			t.Errorf("StatusText(%d, %d) = %q, want %q", tt.stuck, tt.cooling, got, tt.want)
		}
	}
}

func TestStatusLineNamesUnreachableHosts(t *testing.T) {
	for _, tt := range []struct {
		stuck, cooling int
		unreachable    []string
		want           string
	}{
		{3, 0, []string{"devbox"}, "⚠ 3 stuck · devbox ✗"},
		{3, 1, []string{"devbox", "gpu"}, "⚠ 2 stuck · 1 cooling · devbox ✗ · gpu ✗"},
		{0, 0, []string{"devbox"}, "devbox ✗"},
		{2, 0, nil, "⚠ 2 stuck"},
		{0, 0, nil, ""},
	} {
		if got := StatusLine(tt.stuck, tt.cooling, tt.unreachable); got != tt.want {
			t.Errorf("StatusLine(%d, %d, %q) = %q, want %q", tt.stuck, tt.cooling, tt.unreachable, got, tt.want)
		}
	}
}
