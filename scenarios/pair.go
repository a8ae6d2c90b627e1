package scenarios

import (
	"context"
	"fmt"
	"path/filepath"

	"outboxlab/core/report"
)

// Pair is a BEFORE/AFTER pair as its reports name it. Each side's report
// runs both designs on the same seed and compares them.
type Pair struct {
	Before, After           string // the scenarios' names
	BeforeTitle, AfterTitle string // their reports' titles
}

// NewReport starts the report of one side of the pair (the AFTER side when
// after is set): its title and a line naming both scenarios.
func (p Pair) NewReport(after bool) *report.Report {
	name, kind, partner, title := p.After, report.After, p.Before, p.AfterTitle
	if !after {
		name, kind, partner, title = p.Before, report.Before, p.After, p.BeforeTitle
	}
	r := report.New(name, kind)
	r.Title(title)
	r.Linef("Scenario  %s (%s; pairs with %s)", name, kind, partner)
	return r
}

// CompareSection starts the section that sets the two designs' figures side
// by side; the scenario's own run is the column of r's kind.
func CompareSection(r *report.Report) {
	r.Section("Real BEFORE vs AFTER metrics")
	r.Linef("Both designs ran in this invocation on the same seed; this scenario's own run is the %s column.", r.Kind)
}

// RunPair drives both designs of a pair and renders the scenario's report.
// drive runs one design (the AFTER one when after is set) on a fresh
// database at path: the scenario's own design on env.DBPath, the partner's on
// partner.db beside it. render gets the own run and both runs in order.
func RunPair[R any](ctx context.Context, env Env, ownIsAfter bool,
	drive func(ctx context.Context, path string, after bool) (R, error),
	render func(own, before, after R) *report.Report,
) (*report.Report, error) {
	own, err := drive(ctx, env.DBPath, ownIsAfter)
	if err != nil {
		return nil, err
	}
	partner, err := drive(ctx, filepath.Join(env.Dir, "partner.db"), !ownIsAfter)
	if err != nil {
		return nil, fmt.Errorf("run the partner design: %w", err)
	}
	if ownIsAfter {
		return render(own, partner, own), nil
	}
	return render(own, own, partner), nil
}
