// Package ptyhub connects the daemon's answers to the trailboss run supervisors that hold
// an answer stream open (docs/delivery.md, "The PTY supervisor's protocol").
package ptyhub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// PTYHub connects answers to the trailboss run supervisors that hold an answer stream
// open (GET /v1/pty/answers): one stream per session, the latest one winning.
type PTYHub struct {
	mu      sync.Mutex
	streams map[string]*ptyStream
}

type ptyStream struct {
	out  chan wire.PTYAnswer
	acks map[string]chan wire.PTYWritten // by answer id
}

// Attach registers the answer stream of session and returns what it must send, and the
// function that detaches it.
func (h *PTYHub) Attach(session string) (<-chan wire.PTYAnswer, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streams == nil {
		h.streams = make(map[string]*ptyStream)
	}
	s := &ptyStream{out: make(chan wire.PTYAnswer, 4), acks: make(map[string]chan wire.PTYWritten)}
	h.streams[session] = s
	return s.out, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.streams[session] == s {
			delete(h.streams, session)
		}
	}
}

// Attached reports whether session's supervisor holds a stream open.
func (h *PTYHub) Attached(session string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.streams[session]
	return ok
}

// Send gives data, the answer to prompt promptID, to session's supervisor and waits up to
// timeout for it to say whether it wrote it.
func (h *PTYHub) Send(ctx context.Context, session, promptID, data string, timeout time.Duration) (bool, string) {
	id := "a" + randomHex(8)
	ack := make(chan wire.PTYWritten, 1)
	h.mu.Lock()
	s, ok := h.streams[session]
	if ok {
		s.acks[id] = ack
	}
	h.mu.Unlock()
	if !ok {
		return false, "its supervisor is not connected"
	}
	defer func() {
		h.mu.Lock()
		delete(s.acks, id)
		h.mu.Unlock()
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s.out <- wire.PTYAnswer{AnswerID: id, PromptID: promptID, Data: data}:
	case <-t.C:
		return false, "its supervisor did not take the answer in time"
	case <-ctx.Done():
		return false, "the request was cancelled"
	}
	select {
	case w := <-ack:
		if !w.OK {
			return false, w.Reason
		}
		return true, ""
	case <-t.C:
		return false, "its supervisor did not confirm the write in time"
	case <-ctx.Done():
		return false, "the request was cancelled"
	}
}

// Written passes on a supervisor's word about one answer.
func (h *PTYHub) Written(w wire.PTYWritten) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.streams[w.SessionID]
	if !ok {
		return false
	}
	ack, ok := s.acks[w.AnswerID]
	if !ok {
		return false
	}
	select {
	case ack <- w:
	default:
	}
	return true
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error()) // the kernel's randomness is gone: nothing is safe
	}
	return hex.EncodeToString(b)
}
