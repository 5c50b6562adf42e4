package client

import "sync"

// Lazy is a Client made on first use, and made again after Drop: a program started while
// the daemon is down (no token yet), or that lost it (a new token, another address), finds
// it once it is back.
type Lazy struct {
	// Make makes the client; it runs under Lazy's lock.
	Make func() (*Client, error)

	mu sync.Mutex
	c  *Client
}

// Get returns the client, making one when there is none.
func (l *Lazy) Get() (*Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == nil {
		c, err := l.Make()
		if err != nil {
			return nil, err
		}
		l.c = c
	}
	return l.c, nil
}

// Drop forgets the client, so that the next Get makes a new one.
func (l *Lazy) Drop() {
	l.mu.Lock()
	l.c = nil
	l.mu.Unlock()
}
