package ordered

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
)

// identity names a scenario in its report.
type identity struct {
	name, pair, title string
	kind              report.Kind
}

func (o *options) start(id identity, own *run) *report.Report {
	r := report.New(id.name, id.kind)
	r.Title(id.title)
	if id.pair != "" {
		r.Linef("Scenario  %s (%s; pairs with %s)", id.name, id.kind, id.pair)
	} else {
		r.Linef("Scenario  %s (%s)", id.name, id.kind)
	}
	ids := o.orderIDs()
	r.Linef("Log       %s %d..%d, 3 messages each, keyed by order over %s (partition = order id mod %d), produced in sequence rounds at %s",
		report.Plural(o.Orders, "order"), ids[0], ids[len(ids)-1], report.Plural(o.Partitions, "partition"), o.Partitions, clock.ISO(clock.Start))
	r.Linef("Story     order %d: %s; every other order is placed, paid and shipped", o.FailingOrder, storyText(stream(o.cancelled)))
	fix := fmt.Sprintf("until the fix, deployed %s after the consumer goes idle", o.FixAfter)
	if own.design.recovery == noFix {
		fix = "and the run ends with no fix, when the consumer is idle"
	}
	r.Linef("Bug       the %s handler fails for order %d %s", o.FailingMessage, o.FailingOrder, fix)
	r.Linef("Handler   %s", handlerText(own.design.strict))
	r.Linef("Consumer  one consumer, round-robin over the partitions; MaxAttempts %d, retried in place with backoff %s × 2^(n-1) while the partition waits",
		o.MaxAttempts, clock.Millis(o.BaseBackoff))
	r.Linef("Contain   %s", containText(own.design))
	if own.design.off != "" {
		r.Linef("Remedy    SWITCHED OFF by %s", own.design.off)
	}
	r.Linef("Recovery  %s", recoveryText(own.design.recovery, orderKey(o.FailingOrder)))
	r.Linef("Clock     scenario time starts %s; nothing sleeps", clock.ISO(clock.Start))
	return r
}

func storyText(types []string) string {
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s (seq %d", t, i+1)
		if i > 0 {
			parts[i] += fmt.Sprintf(", dependsOn %d", i)
		}
		parts[i] += ")"
	}
	return strings.Join(parts, " → ")
}

func handlerText(strict bool) string {
	if strict {
		return "strict: assumes the earlier state exists and throws when it does not (no order row; not Paid when shipped)"
	}
	return "lenient: stores what it is given and moves whatever order row exists to the new status; checks nothing"
}

func containText(d design) string {
	parts := []string{string(cmpOr(d.contain, keyedlog.DeadLetterOnly))}
	switch d.contain {
	case keyedlog.PoisonCorrelation:
		parts[0] += " (a store read on every record; later records of a poisoned id are parked)"
	case keyedlog.BlockKey:
		parts[0] += " (later records with a blocked key are parked; the partition carries on)"
	case keyedlog.PausePartition:
		parts[0] += " (nothing behind the failed record moves, whatever its key)"
	}
	if d.dependsOn {
		parts = append(parts, "dependsOn check (a record whose dependency is not applied is parked)")
	}
	switch {
	case d.publish:
		parts = append(parts, "a failure event published with each dead letter; customer care listens")
	case d.listen:
		parts = append(parts, "NO failure event published; customer care listens")
	}
	if d.idempotent {
		parts = append(parts, "idempotent (an applied MessageId is skipped)")
	} else {
		parts = append(parts, "NOT idempotent (an applied MessageId is applied again)")
	}
	return strings.Join(parts, "; ")
}

func cmpOr(c, def keyedlog.Containment) keyedlog.Containment {
	if c == "" {
		return def
	}
	return c
}

func recoveryText(rc recovery, id string) string {
	switch rc {
	case redrive:
		return "after the fix, the dead letters are redriven to the end of their partition (the usual DLQ redrive)"
	case replay:
		return "after the fix, replay " + id + "'s dead and parked records in sequence order, then unblock it"
	case replayTwice:
		return "after the fix, replay " + id + "'s dead and parked records in sequence order, then unblock it; then replay it again"
	case resume:
		return "after the fix, resume the paused partition"
	}
	return "none"
}

func (o *options) writeLog(r *report.Report, log []keyedlog.Record) {
	r.Section("The log (42#2 = order 42, sequence 2; each partition is read in offset order)")
	var rows [][]string
	for p := range o.Partitions {
		var orders []int
		var recs []string
		for _, rec := range log {
			if rec.Partition != p {
				continue
			}
			id := orderOf(rec)
			if rec.Sequence == 1 {
				orders = append(orders, id)
			}
			recs = append(recs, fmt.Sprintf("%d#%d", id, rec.Sequence))
		}
		rows = append(rows, []string{strconv.Itoa(p), report.Dash(report.JoinInts(orders)), report.Dash(strings.Join(recs, " "))})
	}
	r.Table([]string{"Partition", "Orders", "Records, offset 0 onwards"}, rows)
}

func orderOf(rec keyedlog.Record) int {
	id, _ := strconv.Atoi(strings.TrimPrefix(rec.Key, "order-"))
	return id
}

func writeTimeline(r *report.Report, run *run) {
	r.Section("Timeline (scenario clock)")
	for _, e := range run.timeline {
		r.Line(timelineLine(e))
	}
}

// writeQueues prints what the consumer set aside and held back, as stored.
func writeQueues(r *report.Report, run *run) {
	r.Section("Dead letters (DeadLetters)")
	var rows [][]string
	for _, d := range run.end.dead {
		rows = append(rows, []string{strconv.FormatInt(d.ID, 10), d.Record.Place(), d.Record.MessageID, d.Record.Type,
			strconv.Itoa(d.Attempts), stamp(d.At), stamp(d.RedrivenAt), stamp(d.ReplayedAt), d.Reason})
	}
	table(r, []string{"Id", "Record", "MessageId", "Type", "Attempts", "DeadLetteredAt", "RedrivenAt", "ReplayedAt", "LastError"}, rows)
	r.Section("Parked records (ParkedMessages)")
	rows = nil
	for _, p := range run.end.parked {
		rows = append(rows, []string{strconv.FormatInt(p.ID, 10), p.Record.Place(), p.Record.MessageID, p.Record.Type,
			stamp(p.At), stamp(p.ReplayedAt), p.Reason})
	}
	table(r, []string{"Id", "Record", "MessageId", "Type", "ParkedAt", "ReplayedAt", "Reason"}, rows)
	r.Section("Holds (poisoned correlation ids, blocked keys, paused partitions)")
	rows = nil
	for _, h := range run.holds {
		rows = append(rows, []string{strconv.FormatInt(h.ID, 10), h.Scope, h.Value, stamp(h.HeldAt), stamp(h.ReleasedAt), h.Reason})
	}
	table(r, []string{"Id", "Scope", "Value", "HeldAt", "ReleasedAt", "Reason"}, rows)
}

// writeStates compares every order with the in-order run.
func (o *options) writeStates(r *report.Report, run *run) {
	r.Section("Order table vs the in-order run (same log, same handler, no bug)")
	header := []string{"Order", "Partition", "When the consumer went idle", "End of this run", "In-order run", "Same at the end"}
	if run.design.recovery == noFix {
		header = []string{"Order", "Partition", "End of this run", "In-order run", "Same at the end"}
	}
	var rows [][]string
	for i, s := range run.end.states {
		same := "yes"
		if s != run.inOrder[i] {
			same = "NO"
		}
		row := []string{strconv.Itoa(s.ID), strconv.Itoa(s.ID % o.Partitions)}
		if run.design.recovery != noFix {
			row = append(row, run.idle.states[i].String())
		}
		rows = append(rows, append(row, s.String(), run.inOrder[i].String(), same))
	}
	r.Table(header, rows)
	r.Linef("Rows with no order (orphans): %s when the consumer went idle; %s at the end", run.idle.orphans, run.end.orphans)
}

func table(r *report.Report, header []string, rows [][]string) {
	if len(rows) == 0 {
		r.Line("(none)")
		return
	}
	r.Table(header, rows)
}
