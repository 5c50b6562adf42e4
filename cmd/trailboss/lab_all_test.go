//go:build lab

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/trailboss/trailboss/testscripts/lab"
)

// TestLabRunAll runs `trailboss lab run --all --json` as a user would, and checks that every
// scenario of the catalogue ran, in order, passed, and reported its figures.
func TestLabRunAll(t *testing.T) {
	if testing.Short() {
		t.Skip("the Prompt Lab starts 21 daemons and supervisors")
	}
	bin, err := exec.LookPath("trailboss")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "lab", "run", "--all", "--json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var results []struct {
		ID     string         `json:"id"`
		Name   string         `json:"name"`
		Pass   *bool          `json:"pass"`
		Detail map[string]any `json:"detail"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("lab run --json printed no JSON array (%v; exit: %v)\nstdout:\n%s\nstderr:\n%s", err, runErr, stdout.String(), stderr.String())
	}
	if len(results) != len(lab.Scenarios()) {
		t.Fatalf("lab run --all ran %d scenarios, want %d", len(results), len(lab.Scenarios()))
	}
	failed := 0
	for i, r := range results {
		s := lab.Scenarios()[i]
		if r.ID != s.ID() || r.Name != s.Name() {
			t.Errorf("result %d is %s %s, want %s %s", i, r.ID, r.Name, s.ID(), s.Name())
		}
		if r.Pass == nil {
			t.Errorf("%s has no \"pass\"", r.ID)
			continue
		}
		for _, k := range []string{"settle_ms", "stall_ms", "seconds"} {
			if _, ok := r.Detail[k].(float64); !ok {
				t.Errorf("%s: detail has no number %q: %v", r.ID, k, r.Detail)
			}
		}
		if !*r.Pass {
			failed++
			b, _ := json.MarshalIndent(r.Detail, "", "  ")
			t.Errorf("%s %s failed:\n%s", r.ID, r.Name, b)
		}
	}
	if (failed == 0) != (runErr == nil) {
		t.Errorf("%d scenarios failed but lab run's exit was %v; want non-zero exactly when one fails\nstderr:\n%s", failed, runErr, stderr.String())
	}
}
