package daemon

import (
	"sync"
	"time"
)

// Holds keeps track of the permission hooks that are holding for an answer (a harness's
// hook that may hold, holdable in harnesses.go) (docs/delivery.md): a prompt is held while a hook waits on it, and for a moment
// after each wait returns, while the hook asks again.
type Holds struct {
	mu       sync.Mutex
	waiting  map[string]int
	lastSeen map[string]time.Time
	takers   map[string]chan struct{} // closed when a wait hands the answer to its hook
}

// holdGrace is how long a hook counts as holding after its last wait returned: it asks
// again at once, so a few seconds cover a slow machine.
const holdGrace = 3 * time.Second

func (h *Holds) init() {
	if h.waiting == nil {
		h.waiting = make(map[string]int)
		h.lastSeen = make(map[string]time.Time)
		h.takers = make(map[string]chan struct{})
	}
}

// Touch says a hook holds prompt id now.
func (h *Holds) Touch(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	h.lastSeen[id] = time.Now()
}

// Assign says a hook holds prompt id now (it is about to be told to), unless another hook
// was told to already: one record, one hook. It reports whether this hook may hold it.
func (h *Holds) Assign(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	if _, told := h.lastSeen[id]; told || h.waiting[id] > 0 {
		return false
	}
	h.lastSeen[id] = time.Now()
	return true
}

// Held reports whether a hook holds prompt id.
func (h *Holds) Held(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	return h.waiting[id] > 0 || time.Since(h.lastSeen[id]) < holdGrace
}

// begin and end bracket one wait of a hook on prompt id.
func (h *Holds) begin(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	h.waiting[id]++
	h.lastSeen[id] = time.Now()
}

func (h *Holds) end(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.waiting[id]--
	h.lastSeen[id] = time.Now()
	if h.waiting[id] <= 0 {
		delete(h.waiting, id)
	}
}

// ExpectTake returns a channel closed when a hook takes the answer to prompt id.
func (h *Holds) ExpectTake(id string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	ch, ok := h.takers[id]
	if !ok {
		ch = make(chan struct{})
		h.takers[id] = ch
	}
	return ch
}

// took says a hook was handed the answer to prompt id.
func (h *Holds) took(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	if ch, ok := h.takers[id]; ok {
		close(ch)
		delete(h.takers, id)
	}
	delete(h.lastSeen, id)
}

// Forget drops what is known of prompt id.
func (h *Holds) Forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	delete(h.takers, id)
	delete(h.lastSeen, id)
}
