package scenariotest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The fixture scenario is written as a new scenario is: this one spec file,
// registered only in this test binary. Nothing else is written for it: its
// --help ranges, its Limits, its refusals, its extremes and its width come
// from the declarations in bindFixture (kit_test.go proves it).
const fixtureName = "kit-fixture"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:      fixtureName,
		Family:    "fixture",
		Kind:      report.Experiment,
		Summary:   "a scenario declared with the kit alone, for the kit's tests",
		Long:      "Counts widgets in batches, each batch after a pause, and checks the count.",
		Example:   "  outboxlab kit-fixture --widgets 7",
		FailsWith: []string{"--miscount"},
		Bind:      func(fs *pflag.FlagSet) scenarios.Options { return bindFixture(fs) },
	})
}

type fixtureOptions struct {
	scenarios.Declared
	Widgets  int
	Batch    int
	Seed     int64
	Pause    time.Duration
	Label    string
	Miscount bool
}

func bindFixture(fs *pflag.FlagSet) *fixtureOptions {
	o := &fixtureOptions{}
	f := o.Declare(fs)
	f.Int(&o.Widgets, "widgets", 5, 1, 40, "widgets to count")
	f.Int(&o.Batch, "batch", 2, 1, 10, "widgets counted per batch")
	f.Int64(&o.Seed, "seed", 7, 0, 1<<20, "seed of nothing in particular")
	f.Duration(&o.Pause, "pause", time.Second, time.Millisecond, time.Hour, "scenario time between two batches")
	f.String(&o.Label, "label", "widgets", scenarios.WordLength, "what the widgets are called in the report")
	f.Bool(&o.Miscount, "miscount", false, "count one widget too few (the check fails)")
	return o
}

// Validate holds only the rule between flags; the ranges are the kit's.
func (o *fixtureOptions) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	if span := time.Duration(o.batches()) * o.Pause; span > 24*time.Hour {
		return fmt.Errorf("--widgets %d in batches of --batch %d, --pause %s apart, take %s, more than a day", o.Widgets, o.Batch, o.Pause, span)
	}
	return nil
}

func (o *fixtureOptions) batches() int { return (o.Widgets + o.Batch - 1) / o.Batch }

func (o *fixtureOptions) Run(_ context.Context, _ scenarios.Env) (*report.Report, error) {
	r := report.New(fixtureName, report.Experiment)
	r.Title("Kit fixture: counting " + o.Label)
	r.Section("Timeline")
	counted, at := 0, time.Duration(0)
	for counted < o.Widgets {
		n := min(o.Batch, o.Widgets-counted)
		counted += n
		r.Linef("  +%-8s counted %d %s (%d so far)", at, n, o.Label, counted)
		at += o.Pause
	}
	if o.Miscount {
		counted--
	}
	r.Check("every widget counted", counted == o.Widgets, fmt.Sprintf("%d of %d", counted, o.Widgets))
	r.Checks("Checks")
	r.Verdict("THE COUNT HOLDS", "THE COUNT IS WRONG")
	return r, nil
}
