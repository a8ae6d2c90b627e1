package wassal

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
)

// finish reads the final state: ledgers, notifications, schema.
func (d *wait18) finish(ctx context.Context) error {
	run := d.run
	var err error
	if run.ledger, err = ReadLedger(ctx, d.producer, run.prov); err != nil {
		return err
	}
	if run.tables, err = d.producer.Tables(ctx); err != nil {
		return err
	}
	if run.notifications, err = readNotifications(ctx, d.producer); err != nil {
		return err
	}
	empty := 0
	for _, p := range run.polls {
		if p.found == 0 {
			empty++
		}
	}
	d.say(run.ended, "", fmt.Sprintf("run ends (the window is %s): %s Processed; %s, %d found nothing",
		durationText(waitWindow), report.Plural(len(run.notifications), "message"), report.Plural(len(run.polls), "poll"), empty))
	return nil
}

func (o *waitOptions) story(own *waitRun, f waitMetrics) story {
	return story{tables: own.tables, timeline: own.lines, ledger: own.ledger, design: Day(16), ledgersOnRequest: true,
		perMessage: func(r *report.Report) { o.writePerMessage(r, own, f) },
		own: []ledgerTable{
			{"Polls (each claim statement the engine ran)", func(r *report.Report) { writePolls(r, f) }},
			{"Notification ledger (PaymentNotifications table)", func(r *report.Report) { writeNotifications(r, own.notifications) }},
		}}
}

func (o *waitOptions) writeSetup(r *report.Report, own *waitRun) {
	r.Linef("Seed      none: the producer writes %s, payment and message in one transaction:", report.Plural(o.Messages, "payment"))
	for _, l := range arrivalLines(o.Messages) {
		r.Line("          " + l)
	}
	r.Line("Store     Day 16's outbox and its claim (--schema shows it)")
	r.Linef("Workers   worker-a and worker-b, one message at a time, handler %s; each polls at once after", durationText(quickHandler))
	if own.after {
		r.Linef("          a message, and every %s (worker-b %s after worker-a) in case a wake is lost",
			durationText(o.Fallback), durationText(o.Fallback/2))
		if own.woken {
			r.Line("Wake      the producer's commit wakes the idle workers, who claim at once")
			r.Line(databaseLine(own.serial, "          (SQLite: the producer wakes them itself once it has committed)",
				"          (PostgreSQL: a NOTIFY in the insert's transaction; each worker LISTENs)"))
		} else {
			r.Line("Wake      none (--notify=false): the workers find new work at their fallback poll")
		}
	} else {
		r.Linef("          a message, and every %s (worker-b %s after worker-a): nothing wakes them",
			durationText(o.Interval), durationText(o.Interval/2))
	}
	r.Linef("Window    %s: the workers stop polling at %s", durationText(waitWindow), stampAt(waitWindow))
	writeClockLine(r, clock.Start)
}

// arrivalLines list the producer's first n moments, three to a line.
func arrivalLines(n int) []string {
	if n == 0 {
		return []string{"none at all (--messages 0)"}
	}
	var lines []string
	for i, d := range waitArrivals[:n] {
		at := PaymentKey(i+1) + " at " + stampAt(d)
		if i%3 == 0 {
			lines = append(lines, at)
		} else {
			lines[len(lines)-1] += ", " + at
		}
	}
	return lines
}

func (o *waitOptions) writePerMessage(r *report.Report, run *waitRun, f waitMetrics) {
	var rows [][]string
	for _, m := range run.ledger.Messages {
		claimed, by, wait := "—", "—", "—"
		if l, ok := f.latency[m.Key]; ok {
			claimed, wait = clock.Stamp(m.CreatedAt.Add(l)), durationText(l)
		}
		for _, c := range run.claims {
			if c.key == m.Key {
				by = c.worker
			}
		}
		rows = append(rows, []string{m.Key, clock.Stamp(m.CreatedAt), claimed, wait, by,
			strconv.Itoa(len(f.notified[m.Key])), string(m.Status)})
	}
	if len(rows) == 0 {
		r.Line("No message was written: nothing to claim (--messages 0).")
		return
	}
	r.Table([]string{"Key", "Inserted", "Claimed", "Waited", "Worker", "Notified", "Outbox"}, rows)
	r.Line("Inserted: the row's CreatedAtUtc; Claimed: the provider's first status check, which a worker")
	r.Line("makes as it claims; Waited: from one to the other.")
}

// writePolls counts each worker's polls by what made it poll and what it found.
func writePolls(r *report.Report, f waitMetrics) {
	var rows [][]string
	for _, w := range []string{"worker-a", "worker-b"} {
		c := f.byWorker[w]
		rows = append(rows, []string{w, strconv.Itoa(c.polls), strconv.Itoa(c.found), strconv.Itoa(c.polls - c.found),
			strconv.Itoa(c.idle), minGap(c.minIdleGap)})
	}
	r.Table([]string{"Worker", "Polls", "Found one", "Found nothing", "Idle polls", "Closest idle polls"}, rows)
	r.Line("Idle polls: empty, neither at an insert's moment nor right after the worker's own completion;")
	r.Line("Closest: the shortest time between two idle polls of the worker.")
}

func minGap(d time.Duration) string {
	if d < 0 {
		return "—"
	}
	return durationText(d)
}
