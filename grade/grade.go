// Package grade runs a student's own worker, in any language, as real
// processes against a Day's database, the lab's scenario clock and its
// scripted provider served over loopback HTTP (docs/grade-protocol.md), and
// judges what the worker left behind with the Day's checks. It is the
// entry: the Days it accepts (the one list), a grade's options, and its
// report. Beneath it: dayspec (what a Day is), one package per Day, judge,
// sched (the scheduler), labserver, workerproc and changelog.
package grade

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/labserver"
	"outboxlab/grade/sched"
	"outboxlab/grade/workerproc"
	"outboxlab/scenarios"
)

// DefaultSeed draws the variations every grade runs unless --seed says otherwise.
const DefaultSeed = 20260116

// DefaultVariations is how many variations a grade runs beside the defaults.
const DefaultVariations = 3

// DefaultTurnBudget is the wall time a worker may run between two lab calls.
const DefaultTurnBudget = sched.DefaultTurnBudget

// ErrCannotStart marks a worker command that could not be started (exit 3).
var ErrCannotStart = sched.ErrCannotStart

// Options are one grade's parameters.
type Options struct {
	Day        *dayspec.Day
	Seed       uint64
	Variations int
	TurnBudget time.Duration
	// StartBudget is the wall time from a worker's start to its hello (0:
	// 15 s, or TurnBudget when longer). No flag sets it: tests do.
	StartBudget time.Duration
	Command     []string
	// Only runs variation Only alone (1 the defaults, as the full grade
	// runs it: same draws, same schedule); 0 runs them all.
	Only int
	// Case, when set, runs this case alone (ParseCase: the JSON of the
	// fields that differ from the Day's defaults), as the smallest failing
	// case a grade found ran.
	Case string
	// Shrink searches, when a check fails, for the smallest case that
	// still fails it (Summary.Smallest).
	Shrink bool
	// Stderr gets the last lines of a failing worker's output as each
	// variation ends: the terminal only, never the report. Nil: the
	// summary keeps them (Summary.Output).
	Stderr io.Writer
	// Progress, when set (a terminal's stderr that can redraw a line),
	// shows how far the grade has got.
	Progress io.Writer

	// Dir is the folder the worker runs in ("": the lab's working folder):
	// class regrades a student's worker in the folder they handed in.
	Dir string
	// Sandbox runs each start of the worker under bubblewrap, its file
	// system read-only outside Dir and the run's own folder (Linux; see
	// workerproc.Sandbox).
	Sandbox bool

	// OverBudget is set by Run when a worker was killed for going over a
	// wall-clock budget: on a loaded machine, the run may deserve another.
	OverBudget bool

	summary *Summary
	folds   []string // each variation's timeline as the report writes it, and folded (Folded)
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
	case o.Only < 0 || o.Only > o.Variations+1:
		return fmt.Errorf("--variation %d: want 1 (the defaults) to %d (--variations %d)", o.Only, o.Variations+1, o.Variations)
	case o.Only > 0 && o.Case != "":
		return errors.New("--variation and --case each run one case: give one of them")
	}
	if o.Case != "" {
		_, err := ParseCase(o.Day, o.Case)
		return err
	}
	return nil
}

// summary is one variation's line in the report's Summary.
type summary struct {
	label                string
	passed, failed, idle int
}

// Run grades the worker on every variation and renders the report.
func (o *Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	cmd, err := workerproc.PrepareIn(ctx, o.Command, env.Dir, o.Dir)
	if err == nil && o.Sandbox {
		cmd, err = cmd.Sandboxed(env.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotStart, err)
	}
	rep := report.New(o.Day.ScenarioName(), report.After)
	rep.Title("Grade — " + o.Day.Title)
	rep.Linef("Scenario  %s (grades a worker against %s; protocol version %d)", o.Day.ScenarioName(), o.Day.ID,
		labserver.ProtocolVersion)
	rep.Linef("Seed      %d (the variations are drawn from it; --seed N draws others)", o.Seed)
	runs := "v1 " + o.firstLabel() + ", then " + report.Plural(o.Variations, "variation") + " drawn from the seed"
	if o.Only > 0 {
		runs = fmt.Sprintf("v%d alone (--variation %d) of v1 %s and %s drawn from the seed",
			o.Only, o.Only, o.firstLabel(), report.Plural(o.Variations, "variation"))
	}
	if o.Case != "" {
		runs = "the case --case gives alone (the smallest failing case a grade printed)"
	}
	rep.Linef("Runs      %s", runs)
	rep.Line("Judged    by what the lab saw: rows and the change log its triggers wrote,")
	rep.Line("          the provider's ledger, the calls it answered; never the worker's claims")
	var sums []summary
	var across acrossRuns
	vars := o.variations()
	prog := startProgress(o.Progress)
	defer prog.stop()
	sum := newSumming(o)
	ran := map[string]ranRun{} // by tag: what the search starts from
	for i, v := range vars {
		if o.Only > 0 && i != o.Only-1 {
			continue
		}
		prog.at(fmt.Sprintf("variation %d of %d", i+1, len(vars)))
		db := env.Database
		if i > 0 && o.Only == 0 {
			if db, err = env.DB(ctx, fmt.Sprintf("variation-%d", i)); err != nil {
				return nil, err
			}
		}
		stream := uint64(i)
		if o.Case != "" {
			stream = caseStream
		}
		g, err := trial{day: o.Day, v: v, cmd: cmd, db: db,
			rng: rand.New(rand.NewPCG(o.Seed, stream)), turn: o.TurnBudget, start: o.StartBudget,
			onCall: prog.call}.grade(ctx)
		if err != nil {
			return nil, err
		}
		o.OverBudget = o.OverBudget || g.r.OverBudget
		label := o.firstLabel()
		if o.Case != "" {
			label = "the case"
		} else if i > 0 {
			label = fmt.Sprintf("variation %d", i)
		}
		sums = append(sums, o.section(rep, g, i, len(vars), label, &across, prog))
		sum.add(i, label, g)
		ran[fmt.Sprintf("v%d", i+1)] = ranRun{i, v, g}
	}
	if o.Only == 0 && o.Case == "" {
		sum.never(across.never())
	}
	o.summary = sum.finish()
	if f := o.summary.First; o.Shrink && f != nil && len(f.In) > 0 && o.Only == 0 && o.Case == "" {
		r := ran[f.In[0]]
		if o.summary.Smallest, err = o.shrink(ctx, env, cmd, r.v, r.i, r.g, prog); err != nil {
			return nil, err
		}
	}
	o.summarize(rep, sums, &across)
	return rep, nil
}

// ranRun is variation i, graded.
type ranRun struct {
	i int
	v dayspec.Variation
	g *graded
}

// section writes variation i's section (of n) into rep, and its checks
// into rep's own, tagged v1, v2, …
func (o *Options) section(rep *report.Report, g *graded, i, n int, label string, across *acrossRuns, prog *progress) summary {
	tag := fmt.Sprintf("v%d", i+1)
	sub := report.New(rep.Scenario, report.After)
	g.render(sub, fmt.Sprintf("Variation %d of %d: %s", i+1, n, label), tag)
	sum := summary{label: tag + " " + label}
	var idle []report.Check
	for _, c := range g.checks {
		if !across.add(tag, c) {
			idle = append(idle, c)
			sum.idle++
			continue
		}
		c.Name = tag + ": " + c.Name
		sub.Record(c)
		rep.Record(c)
		if c.Passed {
			sum.passed++
		} else {
			sum.failed++
		}
	}
	sub.Checks(fmt.Sprintf("Checks — %s (%s)", tag, label))
	noteIdle(sub, tag, idle)
	if full, folded := timelineLines(g.r.Events, false), timelineLines(g.r.Events, true); len(folded) < len(full) {
		o.folds = append(o.folds, strings.Join(full, "\n")+"\n", strings.Join(folded, "\n")+"\n")
	}
	rep.Line(strings.TrimSuffix(sub.Body(), "\n"))
	if sum.failed > 0 && o.Stderr != nil {
		prog.print(o.Stderr, g.output(tag))
	}
	return sum
}

// summarize writes the Summary, one line per variation, and the verdict.
func (o *Options) summarize(rep *report.Report, sums []summary, across *acrossRuns) {
	rep.Section("Summary")
	all := 0
	for _, s := range sums {
		mark := report.MarkPass
		if s.failed > 0 {
			mark = report.MarkFail
		}
		idle := ""
		if s.idle > 0 {
			idle = fmt.Sprintf(", %d not exercised here", s.idle)
		}
		rep.Linef("  %-4s  %-24s %d of %d checks held%s", mark, s.label, s.passed, s.passed+s.failed, idle)
		all += s.failed
	}
	if o.Only == 0 && o.Case == "" {
		all += across.recordNever(rep)
	} else {
		rep.Line("  one run alone: whether each check was exercised in some run is the whole grade's to say")
	}
	rep.Metric("variations", len(sums))
	rep.Metric("failed_checks", all)
	rep.Metric("seed", o.Seed)
	rep.Verdict("every check held in every run that exercised it, and each was exercised: "+
		"the worker does what the Day asks",
		fmt.Sprintf("%s failed: the first FAIL line above names what to fix", report.Plural(all, "check")))
}

// variations are the Day's defaults, then o.Variations drawn from the seed.
func (o *Options) variations() []dayspec.Variation {
	if o.Case != "" {
		v, _ := ParseCase(o.Day, o.Case) // Validate refused one that does not parse
		return []dayspec.Variation{v}
	}
	out := []dayspec.Variation{o.Day.Defaults}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	for range o.Variations {
		out = append(out, o.Day.Vary(rng))
	}
	return out
}

// firstLabel is what the report calls the first run: the course's own run,
// or the Day's defaults where they are not the course's figure for figure.
func (o *Options) firstLabel() string {
	if o.Day.CourseRun {
		return "the course's own run"
	}
	return "defaults"
}
