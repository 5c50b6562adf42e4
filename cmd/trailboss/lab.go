package main

// The Prompt Lab: `trailboss lab list` and `trailboss lab run NAME|--all [--json]` replay
// AtlasBridge's failure scenarios (seeds/atlasbridge-qa-scenarios.md: QA-001 … QA-019)
// against the real daemon and the real PTY supervisor, each scenario with its own daemon,
// temp state and one of the synthetic children of lab_children.go, and for the Telegram
// ones a fake Bot API. The scenarios are in lab_scenarios.go and lab_telegram.go, the rig
// that starts and measures them in lab_rig.go.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

func runLab(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: lab needs a subcommand: list or run (see trailboss lab --help)", errUsage)
	}
	switch args[0] {
	case "list":
		fs := flag.NewFlagSet("lab list", flag.ContinueOnError)
		if err := parse(fs, args[1:], e.stderr); err != nil {
			return err
		}
		return labList(e.stdout)
	case "run":
		return runLabRun(ctx, e, args[1:])
	case "child":
		return runLabChild(ctx, e, args[1:])
	case "-h", "-help", "--help", "help":
		usageFor(e.stdout, flag.NewFlagSet("lab", flag.ContinueOnError))
		return flag.ErrHelp
	}
	return fmt.Errorf("%w: lab: unknown subcommand %q: use list or run (see trailboss lab --help)", errUsage, args[0])
}

func labList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tWHAT IT CHECKS")
	for _, s := range labScenarios {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.id, s.name, s.about)
	}
	return tw.Flush()
}

func runLabRun(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("lab run", flag.ContinueOnError)
	all := fs.Bool("all", false, "run every scenario")
	asJSON := fs.Bool("json", false, "print the results as a JSON array")
	settle := fs.Duration("settle", 400*time.Millisecond, "the supervisor's --settle in every scenario")
	parallel := fs.Int("parallel", 4, "how many scenarios run at once (each has its own daemon)")
	names, err := parseArgs(fs, args, e.stderr, len(labScenarios))
	if err != nil {
		return err
	}
	if *settle <= 0 || *parallel < 1 {
		return fmt.Errorf("%w: lab run: --settle must be positive and --parallel at least 1", errUsage)
	}
	var chosen []*labScenario
	switch {
	case *all && len(names) > 0:
		return fmt.Errorf("%w: lab run: give scenario names or --all, not both", errUsage)
	case *all:
		chosen = labScenarios
	case len(names) == 0:
		return fmt.Errorf("%w: lab run: name a scenario (trailboss lab list shows them) or give --all", errUsage)
	default:
		for _, n := range names {
			s := findLabScenario(n)
			if s == nil {
				return fmt.Errorf("%w: lab run: no scenario is called %q (trailboss lab list shows them)", errUsage, n)
			}
			chosen = append(chosen, s)
		}
	}
	self := selfPath()
	start := time.Now()
	results := make([]labResult, len(chosen))
	done := make([]chan struct{}, len(chosen))
	for i := range done {
		done[i] = make(chan struct{})
	}
	sem := make(chan struct{}, *parallel)
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
				results[i] = labResult{ID: s.id, Name: s.name, Detail: detail{{key: "problems", value: []string{"not run: the lab was interrupted"}}}}
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
			results[i] = runLabScenario(ctx, s, self, *settle)
		}()
	}
	failed := 0
	if !*asJSON {
		// Print each result as soon as it and those before it are known, in catalogue order.
		for i := range chosen {
			<-done[i]
			printLabResult(e.stdout, results[i])
		}
	}
	wg.Wait()
	for _, r := range results {
		if !r.Pass {
			failed++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "\n%d of %d scenarios passed in %.1f s.\n", len(results)-failed, len(results), time.Since(start).Seconds())
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the lab was interrupted")
	}
	if failed > 0 {
		if *asJSON {
			fmt.Fprintf(e.stderr, "trailboss: %d of %d lab scenarios failed\n", failed, len(results))
		}
		return errSilent
	}
	return nil
}

// findLabScenario returns the scenario called name or with that id (any case), or nil.
func findLabScenario(name string) *labScenario {
	for _, s := range labScenarios {
		if strings.EqualFold(s.name, name) || strings.EqualFold(s.id, name) {
			return s
		}
	}
	return nil
}

// labResult is one scenario's outcome, as `lab run --json` prints it.
type labResult struct {
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

func printLabResult(w io.Writer, r labResult) {
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
