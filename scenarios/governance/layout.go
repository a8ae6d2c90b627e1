package governance

import (
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// layout is the shape of a report on a pair of drain runs (store and claim)
// over the same entries: setup, schema, scripts, timelines, outcomes, ledger, alerts.
type layout struct {
	name, title string
	specs       []entrySpec
	flags       *drainFlags
	notes       []string // extra setup lines
}

// write prints everything up to the checks. verbose (--verbose) adds the
// store drain's timeline, the full entry rows and the host's alert lines.
func (l layout) write(r *report.Report, store, claim *driveRun, verbose bool) {
	r.Title(l.title)
	r.Linef("Scenario  %s (%s)", l.name, report.Experiment)
	writeSource(r)
	r.Linef("Entries   %d governance entries %s..%s (%s), in two databases;",
		len(l.specs), l.specs[0].Key, l.specs[len(l.specs)-1].Key, eventType)
	r.Line("          payloads hold protected content and are never printed")
	for _, s := range l.flags.describe() {
		r.Line(s)
	}
	r.Line("Drains    store drain: selects due entries, writes by Id")
	r.Linef("          claim drain: claims for %s with a fencing token, owner-checked writes", emission.DefaultLease)
	if !l.flags.DeadLetterOnMaxRetryAttempts {
		r.Linef("Demo cap  with dead-lettering off, the run is stopped if a live entry reaches %d failures", l.flags.RetryCap)
	}
	for _, n := range l.notes {
		r.Line(n)
	}
	writeStart(r, claim.started)

	scenarios.SchemaSection(r, claim.tables)
	r.Section("Emitter scripts")
	rows := make([][]string, 0, len(l.specs))
	for _, s := range l.specs {
		rows = append(rows, []string{s.Key, s.Role, claim.emitter.ScriptText(s.Key)})
	}
	r.Table([]string{"Entry", "Exercises", "Emitter script (last step repeats)"}, rows)
	runs := []*driveRun{claim}
	if verbose {
		runs = []*driveRun{store, claim}
	}
	for _, run := range runs {
		lines := run.story
		if verbose {
			lines = run.timeline
		}
		writeTimeline(r, fmt.Sprintf("Timeline — %s drain (scenario clock)", run.mode), lines,
			timelineLegend(l.flags.MaxRetryAttempts, hadUnexpected(run.events), !verbose)...)
		end := "idle"
		if run.capped {
			end = "stopped by the demo cap"
		}
		r.Linef("Drain %s at %s after %s", end, clock.DayStamp(run.ended), report.Plural(len(run.emitter.Calls()), "emitter call"))
	}
	if !verbose {
		r.Line("(the store drain ran the same entries in its own database; --verbose prints its timeline)")
	}
	timelineFigure(r, "timeline", "Emissions of the claim drain", claim.events, claim.started, claim.ended)
	r.Section("Outcome side by side")
	writeSideBySide(r, store, claim)
	if verbose {
		r.Section("Entries after the claim drain (GovernanceOutboxEntries; payloads never printed)")
		writeEntryLedger(r, claim.entries)
		r.Section("Host alerts (claim drain)")
		writeAlerts(r, claim.alerts)
		return
	}
	r.Section("Host alerts (claim drain)")
	writeAlertSummary(r, claim.alerts)
}

// writeSource names the material the family reproduces.
func writeSource(r *report.Report) {
	r.Linef("Source    %s", scenarios.Source("governance"))
}
