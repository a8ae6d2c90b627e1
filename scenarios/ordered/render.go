package ordered

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// identity names a scenario in its report.
type identity struct {
	name, pair, title string
	kind              report.Kind
}

// page is a report being written: the error texts it has numbered, and
// whether the full ledgers were asked for (--verbose).
type page struct {
	*report.Report
	notes   errorNotes
	verbose bool
}

// indent begins the continuation of a header line.
const indent = "          "

func (o *options) start(env scenarios.Env, id identity, own *run) *page {
	r := &page{Report: report.New(id.name, id.kind), verbose: env.Verbose}
	r.Title(id.title)
	switch s := scenarios.Lookup(id.name); {
	case id.pair != "":
		r.Linef("Scenario  %s (%s; pairs with %s)", id.name, id.kind, id.pair)
	case s != nil && s.Answers != "":
		r.Linef("Scenario  %s (%s; answers %s)", id.name, id.kind, s.Answers)
	default:
		r.Linef("Scenario  %s (%s)", id.name, id.kind)
	}
	r.Linef("Source    %s", scenarios.Source("ordered"))
	o.writeSetup(r, own)
	return r
}

// writeSetup writes the header lines after the Source: the log, the story,
// the bug, the handler, the consumer and the own design's remedies.
func (o *options) writeSetup(r *page, own *run) {
	line := func(format string, args ...any) { r.Line(fit(fmt.Sprintf(format, args...), indent)) }
	ids := o.orderIDs()
	line("Log       %s %d..%d, 3 messages each, keyed by order; partition = order id mod %d",
		report.Plural(o.Orders, "order"), ids[0], ids[len(ids)-1], o.Partitions)
	line("Story     order %d: %s", o.FailingOrder, storyText(stream(o.cancelled)))
	fix := fmt.Sprintf("until the fix, %s after the consumer goes idle", o.FixAfter)
	if own.design.recovery == noFix {
		fix = "and the run ends, with no fix, when the consumer is idle"
	}
	line("Bug       %s fails for order %d %s", o.FailingMessage, o.FailingOrder, fix)
	line("Handler   %s", handlerText(own.design.strict))
	line("Consumer  one, round-robin over the partitions; %s, retried in place after %s × 2^(n-1)",
		report.Plural(o.MaxAttempts, "attempt"), clock.Millis(o.BaseBackoff))
	line("Contain   %s", containText(own.design))
	if own.design.off != "" {
		line("Remedy    SWITCHED OFF by %s", own.design.off)
	}
	line("Recovery  %s", recoveryText(own.design.recovery, orderKey(o.FailingOrder)))
}

func storyText(types []string) string {
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s #%d", t, i+1)
		if i > 0 {
			parts[i] += fmt.Sprintf(" (needs #%d)", i)
		}
	}
	return strings.Join(parts, " → ")
}

func handlerText(strict bool) string {
	if strict {
		return "strict: throws when the earlier state is missing (no order row; not Paid when shipped)"
	}
	return "lenient: stores what it is given, moves any order row to the new status, checks nothing"
}

func containText(d design) string {
	parts := []string{string(cmpOr(d.contain, keyedlog.DeadLetterOnly))}
	switch d.contain {
	case keyedlog.PoisonCorrelation:
		parts[0] = "remember poisoned ids: a store read per record; later records of one are parked"
	case keyedlog.BlockKey:
		parts[0] += ": later records with a blocked key are parked; the partition carries on"
	case keyedlog.PausePartition:
		parts[0] += ": nothing behind the failed record moves, whatever its key"
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
	if !d.idempotent {
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
		return "after the fix, the usual DLQ redrive: dead letters go back to the end of their partition"
	case replay:
		return "after the fix, replay " + id + "'s dead and parked records in sequence, then unblock it"
	case replayTwice:
		return "after the fix, replay " + id + "'s dead and parked records in sequence, then unblock it; then replay it again"
	case resume:
		return "after the fix, resume the paused partition"
	}
	return "none"
}

func (o *options) writeLog(r *page, log []keyedlog.Record) {
	r.Section("The log (42#2 = order 42, sequence 2; each partition is read in offset order)")
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
		r.Line(fit(fmt.Sprintf("p%d (%s): %s", p, orderList(orders), report.Dash(strings.Join(recs, " "))), "    "))
	}
}

// orderList names orders: "orders 42, 45, 48", "order 43", "no order".
func orderList(ids []int) string {
	switch len(ids) {
	case 0:
		return "no order"
	case 1:
		return "order " + report.JoinInts(ids)
	}
	return "orders " + report.JoinInts(ids)
}

func orderOf(rec keyedlog.Record) int {
	id, _ := strconv.Atoi(strings.TrimPrefix(rec.Key, "order-"))
	return id
}

// writeTimeline prints the run's timeline. By default the plain
// first-attempt applications of other orders at one instant are one line,
// after that instant's other events (the flow the failure did not stop),
// and the clock's idle advances are left out (the next line's time shows
// the jump); --verbose prints each.
//
// After a run like, it leaves out the events the two share from the start.
func (o *options) writeTimeline(r *page, run, like *run) {
	r.Section("Timeline (scenario clock)")
	entries := run.timeline
	if like != nil {
		var a, b errorNotes
		n := 0
		for n < len(entries) && n < len(like.timeline) && timelineLine(entries[n], &a) == timelineLine(like.timeline[n], &b) {
			n++
		}
		if n > 0 && n < len(entries) {
			r.Linef("(as run 1 until %s; then:)", stamp(entries[n].at))
			entries = entries[n:]
		}
	}
	var quiet []entry
	flush := func() {
		if len(quiet) > 0 {
			var orders []int
			for _, e := range quiet {
				if id := orderOf(e.ev.Record); !slices.Contains(orders, id) {
					orders = append(orders, id)
				}
			}
			slices.Sort(orders)
			which := "orders " + report.JoinInts(orders)
			if len(orders) == 1 {
				which = "order " + report.JoinInts(orders)
			}
			if len(orders) > 8 {
				which = report.Plural(len(orders), "other order")
			}
			r.Line(fit(fmt.Sprintf("%s  %-5s %d records of %s applied (--verbose lists each)",
				stamp(quiet[0].at), "…", len(quiet), which), indent+"     "))
		}
		quiet = nil
	}
	// An instant with only one or two such applications keeps them in place.
	plainAt := map[int64]int{}
	for _, e := range entries {
		if o.plain(e) {
			plainAt[e.at.UnixNano()]++
		}
	}
	for _, e := range entries {
		if r.verbose {
			r.Line(timelineLine(e, &r.notes))
			continue
		}
		if len(quiet) > 0 && (!quiet[0].at.Equal(e.at) || e.note != "") {
			flush()
		}
		switch {
		case o.plain(e) && plainAt[e.at.UnixNano()] >= 3:
			quiet = append(quiet, e)
		case e.ev != nil && e.ev.Kind == keyedlog.Advanced:
		default:
			r.Line(timelineLine(e, &r.notes))
		}
	}
	flush()
	r.notes.flush(r)
}

// plain is a first-attempt application, from the log, of another order's
// record: the flow that goes on around the failure.
func (o *options) plain(e entry) bool {
	return e.ev != nil && e.ev.Kind == keyedlog.Applied && e.ev.Via == keyedlog.ViaLog && e.ev.Attempt <= 1 &&
		orderOf(e.ev.Record) != o.FailingOrder && e.ev.Record.RedriveOf == 0
}

// writeQueues prints what the consumer set aside (DeadLetters,
// ParkedMessages) and held back (Holds), as stored; a run that set nothing
// aside prints nothing. Errors and reasons are notes below the table.
func writeQueues(r *page, run *run) {
	rows := slices.Concat(run.end.dead, run.end.parked)
	if len(rows) == 0 && len(run.holds) == 0 {
		return
	}
	redriven, replayed := false, false
	for _, d := range rows {
		redriven = redriven || !d.RedrivenAt.IsZero()
		replayed = replayed || !d.ReplayedAt.IsZero()
	}
	optional := func(row []string, show bool, cell string) []string {
		if show {
			return append(row, cell)
		}
		return row
	}
	r.Section("Set aside (DeadLetters, ParkedMessages) and held back (Holds)")
	if len(rows) > 0 {
		header := optional(optional([]string{"Queue", "Record", "Attempts", "SetAsideAt"}, redriven, "RedrivenAt"), replayed, "ReplayedAt")
		var cells [][]string
		for _, d := range rows {
			queue, attempts := "dead letter", strconv.Itoa(d.Attempts)
			if d.Queue == keyedlog.QueueParking {
				queue, attempts = "parked", report.Empty
			}
			row := []string{queue, shortID(d.Record) + " " + d.Record.Type, attempts, stamp(d.At)}
			row = optional(optional(row, redriven, stamp(d.RedrivenAt)), replayed, stamp(d.ReplayedAt))
			cells = append(cells, append(row, r.notes.ref(d.Reason)))
		}
		r.Table(append(header, "Why"), cells)
	}
	for _, h := range run.holds {
		r.Line(fit(fmt.Sprintf("Hold: %s %s, held at %s, released at %s %s",
			h.Scope, h.Value, stamp(h.HeldAt), stamp(h.ReleasedAt), r.notes.ref(h.Reason)), "      "))
	}
	r.notes.flush(r)
}

// moment is one row of the order table: an order as it stood at one point.
type moment struct {
	name  string
	state orderState
}

// writeStates compares the orders with the in-order run: by default the
// ones that differ from it at some point (and the failing order); --verbose
// shows every order.
func (o *options) writeStates(r *page, run *run) {
	r.Section("Order table vs the in-order run (same log, same handler, no bug)")
	if same, _ := endSame(run); same == len(run.end.states) && run.design.recovery != noFix && !r.verbose {
		// Every order ends right: what is left to show is how the failing one waited.
		i := o.FailingOrder - firstOrder
		r.Line(fit(fmt.Sprintf("Order %d when the consumer went idle: %s; at the end: %s, as in the in-order run.",
			o.FailingOrder, run.idle.states[i], run.end.states[i].brief()), ""))
		r.Linef("All %s equal the in-order run at the end (--verbose shows the table).", report.Plural(same, "order"))
		o.writeOrphans(r, run)
		return
	}
	var rows [][]string
	var equal []int
	for i, s := range run.end.states {
		want := run.inOrder[i]
		moments := []moment{{"end of this run", s}, {"in-order run", want}}
		if run.design.recovery != noFix {
			moments = append([]moment{{"consumer idle", run.idle.states[i]}}, moments...)
		}
		differs := false
		for _, m := range moments {
			differs = differs || m.state != want
		}
		if !differs && s.ID != o.FailingOrder && !r.verbose {
			equal = append(equal, s.ID)
			continue
		}
		for j, m := range moments {
			order, part := "", ""
			if j == 0 {
				order, part = strconv.Itoa(s.ID), strconv.Itoa(s.ID%o.Partitions)
			}
			same := "yes"
			if m.state != want {
				same = "NO"
			}
			if m.name == "in-order run" {
				same = ""
			}
			st := m.state
			status, paid := "none", report.Empty
			if st.Exists {
				status, paid = st.Status, money(st.PaidCents)
			}
			rows = append(rows, []string{order, part, m.name, status, paid, strconv.Itoa(st.Payments), strconv.Itoa(st.Shipments), same})
		}
	}
	r.Table([]string{"Order", "Partition", "When", "Order row", "Paid", "Payments", "Shipments", "= in-order"}, rows)
	if len(equal) > 0 {
		which := orderList(equal)
		if len(equal) > 8 {
			which = "The other " + report.Plural(len(equal), "order")
		}
		r.Line(fit(strings.ToUpper(which[:1])+which[1:]+" equal the in-order run throughout (--verbose lists them).", ""))
	}
	o.writeOrphans(r, run)
}

// writeOrphans counts the rows with no order; only a lenient handler
// stores a payment or shipment without one, so a strict one's run skips it.
func (o *options) writeOrphans(r *page, run *run) {
	if !run.design.strict {
		r.Linef("Rows with no order (orphans): %s when the consumer went idle; %s at the end", run.idle.orphans.brief(), run.end.orphans.brief())
	}
}

func table(r *page, header []string, rows [][]string) {
	if len(rows) == 0 {
		r.Line("(none)")
		return
	}
	r.Table(header, rows)
}
