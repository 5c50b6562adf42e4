package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/trailboss/trailboss/daemon/client"
)

// TestKill9DuringABurst kills the daemon with SIGKILL in the middle of 5,000 events from 50
// concurrent emitters. After a restart, every event the daemon acknowledged is queued,
// and nothing that was never sent appears: what the API acknowledged is on disk.
func TestKill9DuringABurst(t *testing.T) {
	const emitters, perEmitter = 50, 100
	stateDir := t.TempDir()
	d := startDaemonIn(t, stateDir)

	var mu sync.Mutex
	acked := map[string]bool{}
	sent := map[string]bool{}
	var ackCount atomic.Int64
	killed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	httpc, base := d.raw()
	httpc.Timeout = 2 * time.Second
	for w := 0; w < emitters; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perEmitter; i++ {
				id := fmt.Sprintf("burst-%02d-%03d", w, i)
				mu.Lock()
				sent[id] = true
				mu.Unlock()
				req, _ := http.NewRequest(http.MethodPost, base+"/v1/hooks/claude", bytes.NewReader(stopPayload(id, nil)))
				req.Header.Set("Authorization", "Bearer "+d.token)
				resp, err := httpc.Do(req)
				if err != nil {
					continue // the daemon is dead: not acknowledged
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
					if ackCount.Add(1) == emitters*perEmitter/2 {
						once.Do(func() {
							_ = d.cmd.Process.Signal(syscall.SIGKILL)
							close(killed)
						})
					}
				}
			}
		}(w)
	}
	select {
	case <-killed:
	case <-time.After(60 * time.Second):
		t.Fatal("the burst never reached half way")
	}
	wg.Wait()
	_ = d.cmd.Wait()
	if len(acked) >= emitters*perEmitter {
		t.Fatalf("every event was acknowledged: the kill came too late to test anything")
	}

	d2 := startDaemonIn(t, stateDir)
	c, err := client.New(d2.addr, stateDir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	items, err := c.Queue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	queued := map[string]bool{}
	for _, it := range items {
		if queued[it.SessionID] {
			t.Errorf("%s queued twice", it.SessionID)
		}
		queued[it.SessionID] = true
		if !sent[it.SessionID] {
			t.Errorf("%s is queued but was never sent", it.SessionID)
		}
	}
	lost := 0
	for id := range acked {
		if !queued[id] {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d acknowledged events lost to kill -9 (of %d acknowledged)", lost, len(acked))
	}
	t.Logf("%d sent, %d acknowledged before kill -9, %d queued after restart (%d committed but unanswered)",
		len(sent), len(acked), len(queued), len(queued)-len(acked))
}
