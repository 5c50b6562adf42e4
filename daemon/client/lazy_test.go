package client

import (
	"errors"
	"testing"
)

// TestLazyMakesOnFirstUseAndAgainAfterDrop: a failed make is tried again at the next Get,
// the client made is kept, and Drop makes the next Get make a new one.
func TestLazyMakesOnFirstUseAndAgainAfterDrop(t *testing.T) {
	made, fail := 0, true
	l := Lazy{Make: func() (*Client, error) {
		made++
		if fail {
			return nil, errors.New("no token yet")
		}
		return &Client{}, nil
	}}
	if _, err := l.Get(); err == nil {
		t.Fatal("Get returned no error while the daemon is down")
	}
	fail = false
	first, err := l.Get()
	if err != nil || first == nil {
		t.Fatalf("Get once the daemon is up: %v, %v", first, err)
	}
	if again, _ := l.Get(); again != first || made != 2 {
		t.Fatalf("Get made a new client (%d makes) instead of keeping the one it had", made)
	}
	l.Drop()
	if after, _ := l.Get(); after == first || made != 3 {
		t.Fatalf("Get after Drop returned the dropped client (%d makes)", made)
	}
}
