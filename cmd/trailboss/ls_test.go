package main

import "testing"

// What ls shows of a session id is what reply accepts: a prefix no other id starts with.
func TestUniquePrefix(t *testing.T) {
	ids := []string{"3f9c2a1b-aaaa", "3f9c2a1b-bbbb", "7d00e1c2-cccc", "short"}
	for _, tc := range []struct{ id, want string }{
		{"3f9c2a1b-aaaa", "3f9c2a1b-a"},
		{"7d00e1c2-cccc", "7d00e1c2"},
		{"short", "short"},
	} {
		if got := uniquePrefix(tc.id, ids, 8); got != tc.want {
			t.Errorf("uniquePrefix(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
