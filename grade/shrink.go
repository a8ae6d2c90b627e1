package grade

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/workerproc"
	"outboxlab/scenarios"
)

// The smallest failing case: for the first failing check, the grade
// searches for smaller runs that still fail that same check — fewer
// payments, one key of each kind, fewer workers, kinds of key (faults)
// removed, lower counts — within maxReruns reruns, taking the first
// candidate of each round that fails the check and is no larger, until no
// candidate does. The search is deterministic: the same worker gets the
// same case. The case found is replayed once more: a worker that behaves
// differently on the same case depends on something other than the lab.

// maxReruns bounds the search, the replay included.
const maxReruns = 40

// Case is the smallest failing case a grade found.
type Case struct {
	Check  string   `json:"check"`
	Detail string   `json:"detail"`
	From   string   `json:"from"` // the run it was shrunk from: v1, …
	Params []string `json:"params"`
	// JSON is the case as --case takes it (the fields that differ from the
	// Day's defaults); Variation, when the search found nothing smaller,
	// is the run replayed instead (--variation N).
	JSON      string   `json:"case"`
	Variation int      `json:"variation,omitempty"`
	Payments  int      `json:"payments"`
	Workers   int      `json:"workers"`
	Faults    int      `json:"faults"` // keys of a kind: poison, declined, transient, a fault's
	Lines     int      `json:"timeline_lines"`
	Timeline  []string `json:"timeline"` // repeats folded
	Reruns    int      `json:"reruns"`
	Smaller   bool     `json:"smaller"` // strictly smaller than the run it came from
	// Unstable says the worker ran the same case differently when it was
	// replayed ("": it ran it the same).
	Unstable string `json:"unstable,omitempty"`
	// Took is the search's wall time: for the bench, never printed.
	Took time.Duration `json:"-"`
}

// shrinking is the search's state: what it runs and the best case so far.
type shrinking struct {
	o      *Options
	env    scenarios.Env
	cmd    workerproc.Command
	key    string // the check, as checkKey names it
	reruns int
	prog   *progress
}

// shrink searches for the smallest case that fails the summary's first
// failing check, starting from the run it first failed in (g, variation i).
func (o *Options) shrink(ctx context.Context, env scenarios.Env, cmd workerproc.Command, v dayspec.Variation, i int, g *graded, prog *progress) (*Case, error) {
	started := time.Now()
	s := &shrinking{o: o, env: env, cmd: cmd, key: checkKey(o.summary.First.Name), prog: prog}
	best, bestG, found := v, g, false
	for s.reruns < maxReruns-1 {
		next, nextG, err := s.round(ctx, best, bestG)
		if err != nil {
			return nil, err
		}
		if next == nil {
			break
		}
		best, bestG, found = next, nextG, true
	}
	c := s.describe(best, bestG, fmt.Sprintf("v%d", i+1))
	c.Smaller = found && c.smallerThan(s.describe(v, g, ""))
	if found {
		c.JSON = caseJSON(o.Day, best)
		again, err := s.run(ctx, best)
		if err != nil {
			return nil, err
		}
		if !sameRun(bestG, again) {
			c.Unstable = "replayed, the same case ran differently: your worker depends on something other " +
				"than the lab (the wall clock, randomness, files left from a run before)"
		}
	} else {
		c.Variation = i + 1
	}
	c.Reruns, c.Took = s.reruns, time.Since(started)
	return c, nil
}

// round tries best's smaller candidates in order and returns the first
// that still fails the check and is no larger; nil when none does.
func (s *shrinking) round(ctx context.Context, best dayspec.Variation, bestG *graded) (dayspec.Variation, *graded, error) {
	size := s.describe(best, bestG, "")
	for _, cand := range smaller(s.o.Day, best) {
		if s.reruns >= maxReruns-1 {
			return nil, nil, nil
		}
		g, err := s.run(ctx, cand)
		if err != nil {
			return nil, nil, err
		}
		if g != nil && s.fails(g) && s.describe(cand, g, "").noLarger(size) {
			return cand, g, nil
		}
	}
	return nil, nil, nil
}

// run grades one candidate on a database of its own; nil when the Day
// cannot run it (the candidate is not taken).
func (s *shrinking) run(ctx context.Context, v dayspec.Variation) (g *graded, err error) {
	s.reruns++
	s.prog.at(fmt.Sprintf("the smallest failing case, rerun %d of at most %d", s.reruns, maxReruns))
	db, err := s.env.DB(ctx, fmt.Sprintf("case-%d", s.reruns))
	if err != nil {
		return nil, err
	}
	defer func() {
		if recover() != nil {
			g, err = nil, nil // a candidate the Day's setup refuses
		}
	}()
	g, err = trial{day: s.o.Day, v: v, cmd: s.cmd, db: db,
		rng: rand.New(rand.NewPCG(s.o.Seed, caseStream)), turn: s.o.TurnBudget, start: s.o.StartBudget,
		onCall: s.prog.call}.grade(ctx)
	if err != nil && ctx.Err() == nil {
		return nil, nil // a candidate the Day cannot set up
	}
	return g, err
}

// fails reports whether g failed the check the search is about.
func (s *shrinking) fails(g *graded) bool {
	for _, c := range g.checks {
		if checkKey(c.Name) == s.key && !c.Passed && c.Outcome != report.OutcomeNotExercised {
			return true
		}
	}
	return false
}

// describe is the case v, graded g, as the summary shows it.
func (s *shrinking) describe(v dayspec.Variation, g *graded, from string) *Case {
	c := &Case{From: from, Params: v.Describe(), Payments: v.Common().Payments, Workers: v.Common().Workers,
		Faults: len(keysIn(fields(v))), Lines: len(g.r.Events), Timeline: timelineLines(g.r.Events, true)}
	if g.r.Ended != "" {
		c.Timeline = append(c.Timeline, "  the run stopped early: "+g.r.Ended)
	}
	for _, ch := range g.checks {
		if checkKey(ch.Name) == s.key && !ch.Passed {
			c.Check, c.Detail = ch.Name, ch.Detail
			break
		}
	}
	return c
}

// smallerThan reports whether c is no larger than d in any measure and
// smaller in one: payments, workers, faults, timeline lines.
func (c *Case) smallerThan(d *Case) bool {
	a := []int{c.Payments, c.Workers, c.Faults, c.Lines}
	b := []int{d.Payments, d.Workers, d.Faults, d.Lines}
	less := false
	for i := range a {
		if a[i] > b[i] {
			return false
		}
		less = less || a[i] < b[i]
	}
	return less
}

// noLarger reports whether c is no larger than d in any measure.
func (c *Case) noLarger(d *Case) bool {
	return c.Payments <= d.Payments && c.Workers <= d.Workers && c.Faults <= d.Faults && c.Lines <= d.Lines
}

// sameRun reports whether two runs of one case saw the same timeline and
// judged the same checks.
func sameRun(a, b *graded) bool {
	return b != nil && reflect.DeepEqual(a.r.Events, b.r.Events) && reflect.DeepEqual(a.checks, b.checks)
}
