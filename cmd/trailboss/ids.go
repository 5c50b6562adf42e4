package main

import (
	"crypto/rand"
	"encoding/hex"
)

// randomID is a random UUID-shaped id, for an event that came without one.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
