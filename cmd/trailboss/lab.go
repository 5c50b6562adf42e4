//go:build lab

package main

// `trailboss lab list` and `trailboss lab run NAME|--all [--json]`: the Prompt Lab
// (testscripts/lab) replays AtlasBridge's failure scenarios against the real daemon and the
// real PTY supervisor. `trailboss lab child` is one of its synthetic children, which the lab
// starts under `trailboss run`.
//
// Built in only with the lab tag (make lab: bin/trailboss-lab), because the lab brings a fake
// Telegram Bot API and its scenarios: test scaffolding that the binary a user installs must
// not carry. Without the tag, lab_off.go says how to get it.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/trailboss/trailboss/testscripts/lab"
)

func runLab(ctx context.Context, e *env, args []string) error {
	return runSubcommand(ctx, e, "lab", args, []subcommand{{"list", runLabList, false}, {"run", runLabRun, false},
		{"child", runLabChild, true}})
}

func runLabList(_ context.Context, e *env, args []string) error {
	if err := parse(flag.NewFlagSet("lab list", flag.ContinueOnError), args, e.stderr); err != nil {
		return err
	}
	return labList(e.stdout)
}

func labList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tWHAT IT CHECKS")
	for _, s := range lab.Scenarios() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.ID(), s.Name(), s.About())
	}
	return tw.Flush()
}

func runLabRun(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("lab run", flag.ContinueOnError)
	all := fs.Bool("all", false, "run every scenario")
	asJSON := fs.Bool("json", false, "print the results as a JSON array")
	settle := fs.Duration("settle", 400*time.Millisecond, "the supervisor's --settle in every scenario")
	parallel := fs.Int("parallel", 4, "how many scenarios run at once (each has its own daemon)")
	names, err := parseArgs(fs, args, e.stderr, len(lab.Scenarios()))
	if err != nil {
		return err
	}
	if *settle <= 0 || *parallel < 1 {
		return fmt.Errorf("%w: lab run: --settle must be positive and --parallel at least 1", errUsage)
	}
	var chosen []*lab.Scenario
	switch {
	case *all && len(names) > 0:
		return fmt.Errorf("%w: lab run: give scenario names or --all, not both", errUsage)
	case *all:
		chosen = lab.Scenarios()
	case len(names) == 0:
		return fmt.Errorf("%w: lab run: name a scenario (trailboss lab list shows them) or give --all", errUsage)
	default:
		for _, n := range names {
			s := lab.Find(n)
			if s == nil {
				return fmt.Errorf("%w: lab run: no scenario is called %q (trailboss lab list shows them)", errUsage, n)
			}
			chosen = append(chosen, s)
		}
	}
	start := time.Now()
	var each func(lab.Result)
	if !*asJSON {
		each = func(r lab.Result) { lab.Print(e.stdout, r) }
	}
	results := lab.Run(ctx, chosen, lab.Options{Self: selfPath(), Settle: *settle, Parallel: *parallel}, each)
	failed := 0
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

func runLabChild(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("lab child", flag.ContinueOnError)
	record := fs.String("record", "", "file to record what the child writes and reads")
	rest, err := parseArgs(fs, args, e.stderr, 1)
	if err != nil {
		return err
	}
	if len(rest) != 1 || *record == "" {
		return fmt.Errorf("%w: lab child NAME --record FILE", errUsage)
	}
	err = lab.RunChild(ctx, rest[0], *record)
	if errors.Is(err, lab.ErrNoChild) {
		return fmt.Errorf("%w: lab child: no child is called %q", errUsage, rest[0])
	}
	return err
}
