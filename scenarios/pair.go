package scenarios

import (
	"context"
	"fmt"

	"outboxlab/core/changelog"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/report"
)

// Pair is a BEFORE/AFTER pair as its reports name it. Each side's report
// runs both designs on the same seeded data and compares them.
type Pair struct {
	Before, After           string // the scenarios' names
	BeforeTitle, AfterTitle string // their reports' titles
}

// NewReport starts the report of one side of the pair (the AFTER side when
// after is set): its title and a line naming both scenarios, or two lines
// when one would be wider than the terminal.
func (p Pair) NewReport(after bool) *report.Report {
	name, kind, partner, title := p.After, report.After, p.Before, p.AfterTitle
	if !after {
		name, kind, partner, title = p.Before, report.Before, p.After, p.BeforeTitle
	}
	r := report.New(name, kind)
	r.Title(title)
	if line := fmt.Sprintf("Scenario  %s (%s; pairs with %s)", name, kind, partner); report.Width(line) <= report.MaxWidth {
		r.Line(line)
		return r
	}
	r.Linef("Scenario  %s (%s)", name, kind)
	r.Linef("Pairs     with %s", partner)
	return r
}

// CompareSection starts the section that sets the two designs' metrics side
// by side; the scenario's own run is the column of r's kind.
func CompareSection(r *report.Report) {
	r.Section("Real BEFORE vs AFTER metrics")
	r.Linef("Both designs ran in this run on the same seeded data; this scenario's own run is the %s column.", r.Kind)
}

// PairReport is one side of a BEFORE/AFTER pair, declared as a spec: the
// family fills in what its lesson needs and Run drives both designs on the
// same seeded data and writes the report in the order every pair shares:
//
//	title and Scenario line   Pair.NewReport
//	Source                    the family's material (scenarios.Source)
//	Setup                     the parameters of the run
//	Story                     the own run's schema, timeline, tables and ledgers
//	comparison                Compare, or CompareSection and the Metrics table
//	AfterCompare              sections after the comparison (optional)
//	checks                    Checks, recorded under ChecksTitle
//	Explain                   why the failed checks failed (optional)
//	verdict                   Verdict's pass line, or its fail line
//	JSON metrics              the own run's keyed Metrics
//
// R is one design's run, as Drive returns it; the hooks read the scenario's
// own run (own) and both runs in order (before, after).
type PairReport[R any] struct {
	Pair   Pair
	After  bool   // the scenario's own design is the AFTER one: the pair's one design switch
	Family string // whose Source the header names
	// Source, when set, is the header's Source line instead of the
	// family's: a lesson of the lab's own beyond the family's material.
	Source string

	// Drive runs one design (the AFTER one when after is set) on a fresh
	// database db: the scenario's own design on Env.Database, the other on
	// Env.DB("partner"), in that order.
	Drive func(ctx context.Context, db dialect.Database, after bool) (R, error)

	Setup func(r *report.Report, own R)
	Story func(r *report.Report, own, before, after R)

	// Metrics are every number the pair is judged by, declared once: the
	// labelled ones are the comparison table's rows under Columns (label,
	// BEFORE, AFTER), the keyed ones the own run's JSON metrics.
	Metrics []Metric[R]
	Columns []string
	// Compare, when set, writes the comparison instead of CompareSection
	// and the table of Metrics.
	Compare      func(r *report.Report, before, after R)
	AfterCompare func(r *report.Report, own R)

	ChecksTitle string
	Checks      func(r *report.Report, own, before, after R)
	Explain     func(r *report.Report, before, after R)
	// Verdict is the verdict's two lines: when every check passed, and otherwise.
	Verdict func(own R) (pass, fail string)
}

// Run drives both designs (see RunPair) and writes the scenario's report.
func (p PairReport[R]) Run(ctx context.Context, env Env) (*report.Report, error) {
	return RunPair(ctx, env, p.After, p.Drive, p.Write)
}

// Write writes the report of the scenario's own run, both runs given.
func (p PairReport[R]) Write(own, before, after R) *report.Report {
	r := p.Pair.NewReport(p.After)
	source := p.Source
	if source == "" {
		source = Source(p.Family)
	}
	r.Linef("Source    %s", source)
	p.Setup(r, own)
	p.Story(r, own, before, after)
	if p.Compare != nil {
		p.Compare(r, before, after)
	} else {
		CompareSection(r)
		MetricTable(r, p.Columns, p.Metrics, before, after)
	}
	if p.AfterCompare != nil {
		p.AfterCompare(r, own)
	}
	p.Checks(r, own, before, after)
	r.Checks(p.ChecksTitle)
	if p.Explain != nil {
		p.Explain(r, before, after)
	}
	r.Verdict(p.Verdict(own))
	RecordMetrics(r, p.Metrics, own)
	return r
}

// RunPair drives both designs of a pair and renders the scenario's report.
// drive runs one design (the AFTER one when after is set) on a fresh
// database db: the scenario's own design on env.Database, the partner's on
// env.DB("partner"). render gets the own run and both runs in
// order.
func RunPair[R any](ctx context.Context, env Env, after bool,
	drive func(ctx context.Context, db dialect.Database, after bool) (R, error),
	render func(own, before, after R) *report.Report,
) (*report.Report, error) {
	ownCtx := env.Recorder.Watch(ctx, designName(after), env.Database)
	own, err := drive(ownCtx, env.Database, after)
	if err == nil {
		err = changelog.Unrecorded(ownCtx, clock.Start) // a drive that records nothing still gets its replay
	}
	if err != nil {
		return nil, err
	}
	at, err := env.DB(ctx, "partner")
	if err != nil {
		return nil, err
	}
	partnerCtx := env.Recorder.Watch(ctx, designName(!after), at)
	partner, err := drive(partnerCtx, at, !after)
	if err == nil {
		err = changelog.Unrecorded(partnerCtx, clock.Start)
	}
	if err != nil {
		return nil, fmt.Errorf("run the partner design: %w", err)
	}
	if after {
		return render(own, partner, own), nil
	}
	return render(own, own, partner), nil
}

// MetricsOf turns metrics of M, the numbers read from a run, into metrics of
// the run R itself: each cell reads measure(run) first.
func MetricsOf[R, M any](metrics []Metric[M], measure func(R) M) []Metric[R] {
	out := make([]Metric[R], len(metrics))
	for i, m := range metrics {
		out[i] = Metric[R]{Label: m.Label, Key: m.Key}
		if m.Show != nil {
			out[i].Show = func(x R) string { return m.Show(measure(x)) }
		}
		if m.Value != nil {
			out[i].Value = func(x R) any { return m.Value(measure(x)) }
		}
	}
	return out
}

// designName is how the change log names a pair's design.
func designName(after bool) string {
	if after {
		return "AFTER"
	}
	return "BEFORE"
}
