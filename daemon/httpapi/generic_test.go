package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestGenericConcurrentRepeatsApplyOnce: many copies of one event at once are applied once;
// the others are acknowledged as duplicates.
func TestGenericConcurrentRepeatsApplyOnce(t *testing.T) {
	f := newAPI(t)
	body := `{"v":1,"id":"same","type":"session.stuck","session":"G","summary":"checkpoint"}`
	var wg sync.WaitGroup
	var mu sync.Mutex
	fresh, dup := 0, 0
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := f.do(http.MethodPost, "/v1/events", strings.NewReader(body))
			var out struct {
				Duplicate bool `json:"duplicate"`
			}
			if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
				t.Errorf("status %d %s", rec.Code, rec.Body)
				return
			}
			mu.Lock()
			if out.Duplicate {
				dup++
			} else {
				fresh++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if fresh != 1 || dup != 19 {
		t.Fatalf("%d applied, %d duplicates; want 1 and 19", fresh, dup)
	}
	if items := f.engine.Items(); len(items) != 1 || items[0].ID != "G" {
		t.Fatalf("queue %v", items)
	}
}

// TestGenericRefusalIsJSONWithReasonAndProblems: a refusal says why in a form a sender can
// branch on, and changes nothing.
func TestGenericRefusalIsJSONWithReasonAndProblems(t *testing.T) {
	f := newAPI(t)
	rec := f.do(http.MethodPost, "/v1/events", strings.NewReader(`{"v":1,"type":"session.stuck"}`))
	var out struct {
		Error    string   `json:"error"`
		Reason   string   `json:"reason"`
		Problems []string `json:"problems"`
	}
	if rec.Code != 400 || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
		t.Fatalf("status %d %s", rec.Code, rec.Body)
	}
	if out.Reason != "invalid_envelope" || len(out.Problems) != 2 || !strings.Contains(out.Error, "missing id") {
		t.Errorf("refusal %+v", out)
	}
	if len(f.engine.Items()) != 0 {
		t.Error("a refused envelope changed the queue")
	}
}
