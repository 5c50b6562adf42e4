// Package lab is the Prompt Lab: AtlasBridge's failure scenarios
// (seeds/atlasbridge-qa-scenarios.md: QA-001 … QA-019) and issue 18's, replayed against the
// real daemon and the real PTY supervisor. Each scenario has its own daemon, temp state and
// one of the synthetic children (children.go), and the Telegram ones a fake Bot API. The
// scenarios are in scenarios.go, telegram.go and issue18.go; the rig that starts and
// measures them in rig.go. `trailboss lab` is the verb that runs it.
package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Scenarios returns the catalogue, in order.
func Scenarios() []*Scenario { return scenarios }

// ID is the scenario's id in the catalogue ("QA-001").
func (s *Scenario) ID() string { return s.id }

// Name is the scenario's short name ("partial-line-prompt").
func (s *Scenario) Name() string { return s.name }

// About says in a sentence what the scenario checks.
func (s *Scenario) About() string { return s.about }

// Options are how scenarios run.
type Options struct {
	Self     string        // the trailboss binary the daemons, supervisors and children run
	Settle   time.Duration // the supervisor's --settle in every scenario
	Parallel int           // how many scenarios run at once (each has its own daemon)
}

// Run runs chosen, at most opts.Parallel at once (a scenario that must run alone runs
// alone), and returns their results in the order given. each, when not nil, is called with
// each result as soon as it and those before it are known, in that order.
func Run(ctx context.Context, chosen []*Scenario, opts Options, each func(Result)) []Result {
	results := make([]Result, len(chosen))
	done := make([]chan struct{}, len(chosen))
	for i := range done {
		done[i] = make(chan struct{})
	}
	sem := make(chan struct{}, max(opts.Parallel, 1))
	var exclusive sync.RWMutex // a scenario that must run alone holds it for writing
	var wg sync.WaitGroup
	for i, s := range chosen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = Result{ID: s.id, Name: s.name, Detail: detail{{key: "problems", value: []string{"not run: the lab was interrupted"}}}}
				return
			}
			defer func() { <-sem }()
			if s.alone {
				exclusive.Lock()
				defer exclusive.Unlock()
			} else {
				exclusive.RLock()
				defer exclusive.RUnlock()
			}
			results[i] = runScenario(ctx, s, opts.Self, opts.Settle)
		}()
	}
	if each != nil {
		for i := range chosen {
			<-done[i]
			each(results[i])
		}
	}
	wg.Wait()
	return results
}

// clip cuts s to n runes, the last an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Find returns the scenario called name or with that id (any case), or nil.
func Find(name string) *Scenario {
	for _, s := range scenarios {
		if strings.EqualFold(s.name, name) || strings.EqualFold(s.id, name) {
			return s
		}
	}
	return nil
}

// Result is one scenario's outcome, as `lab run --json` prints it.
type Result struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail detail `json:"detail"`
}

// detail is a scenario's measured figures in the order they were taken: a JSON object whose
// keys keep that order. Each figure also says what it means in words, for the text report.
type detail []figure

type figure struct {
	key   string
	value any
	words string // "" for figures the text report leaves out
}

// MarshalJSON returns d as one JSON object, its keys in d's order.
func (d detail) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, fmt.Errorf("detail %s: %w", f.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// UnmarshalJSON reads an object into d (keys in the order given), for the lab's tests.
func (d *detail) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("detail is not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*d = append(*d, figure{key: t.(string), value: v})
	}
	_, err := dec.Token()
	return err
}

// get returns the value of the figure called key, or nil.
func (d detail) get(key string) any {
	for _, f := range d {
		if f.key == key {
			return f.value
		}
	}
	return nil
}

// Print writes r as the text report shows it: the verdict, the figures in words, and for a
// failure its problems and the last lines of each log.
func Print(w io.Writer, r Result) {
	verdict := "pass"
	if !r.Pass {
		verdict = "FAIL"
	}
	secs := ""
	if s, ok := r.Detail.get("seconds").(float64); ok {
		secs = fmt.Sprintf("  (%.1f s)", s)
	}
	fmt.Fprintf(w, "%s  %s  %s%s\n", verdict, r.ID, r.Name, secs)
	for _, f := range r.Detail {
		if f.words != "" {
			fmt.Fprintf(w, "        %s\n", f.words)
		}
	}
	if p, ok := r.Detail.get("problems").([]string); ok {
		for _, s := range p {
			fmt.Fprintf(w, "   ✗    %s\n", s)
		}
	}
	if logs, ok := r.Detail.get("logs").(map[string]string); ok && !r.Pass {
		for _, name := range []string{"protocol", "supervisor", "daemon", "screen", "child"} {
			if s := logs[name]; s != "" {
				what := "the last lines of the " + name + "'s output"
				switch name {
				case "protocol":
					what = "the supervisor's last requests to the daemon, as the lab's tap saw them"
				case "child":
					what = "the child's own record of what it wrote and read"
				}
				fmt.Fprintf(w, "        --- %s:\n", what)
				for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
					fmt.Fprintf(w, "        | %s\n", l)
				}
			}
		}
	}
}
