// Package grade runs a student's own worker, in any language, as real
// processes against a Day's database, the lab's scenario clock and its
// scripted provider served over loopback HTTP (docs/grade-protocol.md), and
// judges what the worker left behind with the Day's checks.
package grade

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// A grade's options and its report: Run grades every variation and writes
// one section per variation, its checks, and a summary of them all.

// Options are one grade's parameters.
type Options struct {
	Day         *Day
	Seed        uint64
	Variations  int
	TurnBudget  time.Duration
	Command     []string
	startBudget time.Duration // tests: the wall time until hello (0: 15 s)
	// Stderr gets the last lines of a failing worker's output: the terminal
	// only, never the report.
	Stderr io.Writer
}

// Validate checks the options; a grade with bad options does not run.
func (o *Options) Validate() error {
	switch {
	case o.Day == nil:
		return errors.New("no Day to grade")
	case len(o.Command) == 0:
		return errors.New("no worker command: give it after --, e.g. outboxlab grade session-16 -- go run ./day16")
	case o.Variations < 0 || o.Variations > 20:
		return fmt.Errorf("--variations %d: want 0 to 20", o.Variations)
	case o.TurnBudget < 100*time.Millisecond || o.TurnBudget > time.Minute:
		return fmt.Errorf("--turn-budget %s: want 100ms to 1m", o.TurnBudget)
	}
	return nil
}

// ErrCannotStart marks a worker command that could not be started (exit 3).
var ErrCannotStart = errors.New("the worker command cannot be started")

// Run grades the worker on every variation and renders the report.
func (o *Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	cmd, err := prepareCommand(ctx, o.Command, env.Dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotStart, err)
	}
	rep := report.New(o.Day.ScenarioName(), report.After)
	rep.Title("Grade — " + o.Day.Title)
	rep.Linef("Scenario  %s (grades a worker against %s; protocol version %d)", o.Day.ScenarioName(), o.Day.ID, ProtocolVersion)
	rep.Linef("Seed      %d (the variations are drawn from it; --seed N draws others)", o.Seed)
	rep.Linef("Runs      the defaults (the course's numbers) and %s", report.Plural(o.Variations, "variation"))
	rep.Line("Judged    by what the lab saw: rows and the change log its triggers wrote,")
	rep.Line("          the provider's ledger, the calls it answered; never the worker's claims")
	type summary struct {
		label          string
		passed, failed int
	}
	var sums []summary
	vars := o.variations()
	for i, v := range vars {
		loc := env.Location
		if i > 0 {
			if loc, err = env.DB(ctx, fmt.Sprintf("variation-%d", i)); err != nil {
				return nil, err
			}
		}
		g, err := o.grade(ctx, cmd, v, loc, env.Dialect() == dialect.Postgres, uint64(i))
		if err != nil {
			return nil, err
		}
		tag := fmt.Sprintf("v%d", i+1)
		sub := report.New(rep.Scenario, report.After)
		g.render(sub, fmt.Sprintf("Variation %d of %d: %s", i+1, len(vars), v.Label), tag)
		sum := summary{label: tag + " " + v.Label}
		for _, c := range g.checks {
			name := tag + ": " + c.name
			sub.Check(name, c.passed, c.detail)
			rep.Check(name, c.passed, c.detail)
			if c.passed {
				sum.passed++
			} else {
				sum.failed++
			}
		}
		sub.Checks(fmt.Sprintf("Checks — %s (%s)", tag, v.Label))
		rep.Line(strings.TrimSuffix(sub.Body(), "\n"))
		sums = append(sums, sum)
		if sum.failed > 0 && o.Stderr != nil {
			g.showOutput(o.Stderr, tag)
		}
	}
	rep.Section("Summary")
	all := 0
	for _, s := range sums {
		mark := report.MarkPass
		if s.failed > 0 {
			mark = report.MarkFail
		}
		rep.Linef("  %-4s  %-24s %d of %d checks held", mark, s.label, s.passed, s.passed+s.failed)
		all += s.failed
	}
	rep.Metric("variations", len(vars))
	rep.Metric("failed_checks", all)
	rep.Metric("seed", o.Seed)
	rep.Verdict("every check held in every variation: the worker does what the Day asks",
		fmt.Sprintf("%s failed: the first FAIL line above names what to fix", report.Plural(all, "check")))
	return rep, nil
}

// showOutput writes the last lines of each worker's output to w.
func (g *graded) showOutput(w io.Writer, tag string) {
	for _, s := range g.r.slots {
		if t := strings.TrimSpace(s.out.Tail(12)); t != "" {
			fmt.Fprintf(w, "outboxlab: %s %s's last output:\n", tag, s.id)
			for _, l := range strings.Split(t, "\n") {
				fmt.Fprintf(w, "  | %s\n", l)
			}
		}
	}
}
