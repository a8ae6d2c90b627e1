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
	// bothTimelines prints the store drain's timeline too; otherwise it is
	// only compared with the claim drain's, line by line, by a check.
	bothTimelines bool
}

// write prints everything up to the checks.
func (l layout) write(r *report.Report, store, claim *driveRun) {
	r.Title(l.title)
	r.Linef("Scenario  %s (%s)", l.name, report.Experiment)
	r.Linef("Entries   %d governance entries %s..%s (%s), seeded identically in two databases; payloads hold protected content",
		len(l.specs), l.specs[0].Key, l.specs[len(l.specs)-1].Key, eventType)
	for _, s := range l.flags.describe() {
		r.Line(s)
	}
	r.Linef("Drains    store drain: selects due entries, writes by Id; claim drain: claims for %s with a fencing token, owner-checked writes", emission.DefaultLease)
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
	if l.bothTimelines {
		runs = []*driveRun{store, claim}
	}
	for _, run := range runs {
		writeTimeline(r, fmt.Sprintf("Timeline — %s drain (scenario clock)", run.mode), run.timeline)
		end := "idle"
		if run.capped {
			end = "stopped by the demo cap"
		}
		r.Linef("Drain %s at %s after %s", end, clock.DayStamp(run.ended), report.Plural(len(run.emitter.Calls()), "emitter call"))
	}
	if !l.bothTimelines {
		r.Linef("(the store drain ran the same entries in its own database; the checks compare its %d transitions with these)", len(store.log))
	}
	r.Section("Outcome side by side")
	writeSideBySide(r, store, claim)
	r.Section("Entries after the claim drain (GovernanceOutboxEntries; payloads never printed)")
	writeEntryLedger(r, claim.entries)
	r.Section("Host alerts (claim drain)")
	writeAlerts(r, claim.alerts)
}
