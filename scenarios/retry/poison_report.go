package retry

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// poisonMetrics are the numbers of one counter position, all read back from
// its database and from how its child processes ended.
type poisonMetrics struct {
	restarts, delivered, deaths          int
	processed, deadLetters, remaining    int
	claimTokens                          int // the queue's own count of deliveries: sum of ClaimToken
	kills                                int // lifetimes that ended killed by SIGKILL on a lethal message
	lethalDeliveries, lethalCatchCounter []int
	lethalStatuses                       []outbox.Status
	healthyUnprocessed                   []string // the keys of the healthy messages not Processed
}

// metrics reads one run's numbers from what it left: lifetimes started from
// the audit log, deliveries from the audit entries the children wrote in
// their claim transactions, deaths from how the child processes exited, and
// statuses, attempt counts, claim tokens and catch counters from the rows.
func (o *poisonOptions) metrics(run *poisonRun) poisonMetrics {
	var f poisonMetrics
	for _, a := range run.audit {
		if a.Actor == supervisor && a.Action == actionStarted {
			f.restarts++
		}
	}
	lethal := o.lethalKeys()
	for _, l := range run.lifetimes {
		f.delivered += l.deliveries
		if l.died {
			f.deaths++
			if l.signal == sigkill && slices.Contains(lethal, l.lastKey) {
				f.kills++
			}
		}
	}
	for _, m := range run.msgs {
		f.claimTokens += int(m.ClaimToken)
		switch m.Status {
		case outbox.Processed:
			f.processed++
		case outbox.DeadLettered:
			f.deadLetters++
		default:
			f.remaining++
		}
		if !slices.Contains(lethal, m.Key) && m.Status != outbox.Processed {
			f.healthyUnprocessed = append(f.healthyUnprocessed, m.Key)
		}
		if slices.Contains(lethal, m.Key) {
			f.lethalDeliveries = append(f.lethalDeliveries, m.AttemptCount)
			f.lethalCatchCounter = append(f.lethalCatchCounter, run.catches[m.ID])
			f.lethalStatuses = append(f.lethalStatuses, m.Status)
		}
	}
	return f
}

func (o *poisonOptions) render(runs []*poisonRun, verbose bool) *report.Report {
	r := report.New(poisonCounter, report.Experiment)
	r.Title("Poison counter — EXPERIMENT: the message that kills the consumer process")
	r.Linef("Scenario   %s (EXPERIMENT; the course's poison-counter.mjs, with real process deaths)", poisonCounter)
	r.Linef("Source     %s", scenarios.Source("retry"))
	r.Linef("Queue      %s %s..%s (%s), oldest first",
		report.Plural(o.Messages, "notification"), noteKey(1), noteKey(o.Messages), notificationType)
	r.Linef("Lethal     %s; threshold %s", strings.Join(o.lethalKeys(), ", "), report.Plural(o.Threshold, "attempt"))
	r.Linef("Processes  one child process per lifetime; a lethal message SIGKILLs it: nothing after it runs")
	r.Linef("Supervisor restarts a dead consumer %s later, at most %s; visibility timeout %s",
		clockText(restartDelay), report.Plural(o.MaxRestarts, "lifetime"), clockText(visibilityTimeout))
	r.Linef("Work       a healthy notification takes %s; scenario time starts %s; nothing sleeps",
		clockText(workTime), clock.Stamp(clock.Start))
	r.Line("Counters   on catch: CatchCounters.Failures += 1 in the catch block")
	r.Line("           at delivery: AttemptCount += 1 in the claim, committed before the work")
	o.writeDatabases(r, runs)

	scenarios.SchemaSection(r, runs[0].tables)

	for _, run := range runs {
		r.Section(fmt.Sprintf("Timeline: counter %s (scenario clock, from the audit log)", run.position.name))
		writeAuditTimeline(r, run.audit, verbose)
	}
	r.Figure(poisonTimeline(runs))

	metrics := []poisonMetrics{o.metrics(runs[0]), o.metrics(runs[1])}
	r.Section("The two counter positions (the course's table)")
	metricRows(r, "counter position", seedMetrics, []string{runs[0].position.name, runs[1].position.name}, metrics)
	r.Line("restarts: process lifetimes started; delivered: claims written to the audit log;")
	r.Line("process deaths: children killed by a signal")

	r.Section("Per message: what each counter saw")
	o.writePerMessage(r, runs)
	if verbose {
		r.Section("Process lifetimes")
		o.writeLifetimes(r, runs)
		for _, run := range runs {
			r.Section(fmt.Sprintf("Outbox ledger: counter %s (database %s)", run.position.name, run.position.db))
			scenarios.WriteOutboxLedger(r, run.msgs)
		}
	}

	o.checks(r, metrics)
	judgement{title: seedChecks,
		pass: "THE COUNTER BELONGS AT DELIVERY — IT ISOLATES THE MESSAGE THAT KILLS THE PROCESS",
		fail: "THE COURSE'S PROPERTIES DID NOT ALL HOLD FOR THESE FLAGS"}.
		write(r, func(failed map[string]bool) []string { return o.whyFailed(failed, runs, metrics) })
	for i, f := range metrics {
		recordMetricsOf(r, seedMetrics, runs[i].position.key, f)
	}
	return r
}

// seedMetrics declare the course's table once: its columns, one row per
// counter position, and their JSON metrics (restarts_on_catch).
var seedMetrics = []scenarios.Metric[poisonMetrics]{
	{Label: "restarts", Key: "restarts", Value: func(f poisonMetrics) any { return f.restarts }},
	{Label: "delivered", Key: "delivered", Value: func(f poisonMetrics) any { return f.delivered }},
	{Label: "process deaths", Key: "process_deaths", Value: func(f poisonMetrics) any { return f.deaths }},
	{Label: "processed", Key: "processed", Value: func(f poisonMetrics) any { return f.processed }},
	{Label: "dead letters", Key: "dead_letters", Value: func(f poisonMetrics) any { return f.deadLetters }},
	{Label: "remaining", Key: "remaining", Value: func(f poisonMetrics) any { return f.remaining }},
}

// writeAuditTimeline writes an audit log as timeline lines. Unless verbose,
// a run of lifetimes that each did the same as the one before is shortened
// to its first and its last, with one line for those left out.
func writeAuditTimeline(r *report.Report, audit []outbox.AuditEntry, verbose bool) {
	var blocks [][]outbox.AuditEntry
	for _, a := range audit {
		if a.Actor == supervisor && a.Action == actionStarted || len(blocks) == 0 {
			blocks = append(blocks, nil)
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], a)
	}
	shape := func(b []outbox.AuditEntry) string {
		var s strings.Builder
		for _, a := range b {
			fmt.Fprintf(&s, "%s %d;", a.Action, a.MessageID)
		}
		return s.String()
	}
	for i := 0; i < len(blocks); {
		j := i + 1
		for j < len(blocks) && shape(blocks[j]) == shape(blocks[i]) {
			j++
		}
		// blocks[i:j] did the same thing, one after another.
		if verbose || j-i <= 2 {
			for _, b := range blocks[i:j] {
				for _, a := range b {
					r.Line(auditLine(a))
				}
			}
		} else {
			for _, a := range blocks[i] {
				r.Line(auditLine(a))
			}
			r.Linef("%13s  …           %s more did the same (--verbose lists them)", "", report.Plural(j-i-2, "lifetime"))
			for _, a := range blocks[j-1] {
				r.Line(auditLine(a))
			}
		}
		i = j
	}
}

// auditLine renders one audit entry as a timeline line.
func auditLine(a outbox.AuditEntry) string {
	at := clock.Stamp(mustParseISO(a.At))
	switch a.Action {
	case actionProcessed:
		return fmt.Sprintf("%s  %-11s %s processed", at, a.Actor, a.Detail)
	case actionDeadLettered:
		return fmt.Sprintf("%s  %-11s DEAD-LETTERED %s", at, a.Actor, a.Detail)
	case actionDied:
		return fmt.Sprintf("%s  %-11s ✗ %s", at, a.Actor, a.Detail)
	}
	return fmt.Sprintf("%s  %-11s %s", at, a.Actor, a.Detail)
}

func (o *poisonOptions) writePerMessage(r *report.Report, runs []*poisonRun) {
	var rows [][]string
	for _, run := range runs {
		for _, m := range run.msgs {
			job := "healthy"
			if slices.Contains(o.lethalKeys(), m.Key) {
				job = "lethal"
			}
			counter := run.catches[m.ID]
			if run.position.atDelivery {
				counter = m.AttemptCount
			}
			rows = append(rows, []string{run.position.name, m.Key, job, string(m.Status), strconv.Itoa(m.AttemptCount),
				strconv.Itoa(run.catches[m.ID]), fmt.Sprintf("%d of %d", counter, o.Threshold)})
		}
	}
	r.Table([]string{"counter position", "message", "job", "final status", "AttemptCount",
		"caught failures", "threshold reads"}, rows)
	r.Line("deliveries are AttemptCount; the threshold reads CatchCounters.Failures on catch, AttemptCount")
	r.Line("at delivery; a lethal job kills the process")
}

func (o *poisonOptions) writeLifetimes(r *report.Report, runs []*poisonRun) {
	var rows [][]string
	for _, run := range runs {
		for _, l := range run.lifetimes {
			how := "exited 0: nothing left to deliver"
			if l.died {
				how = fmt.Sprintf("killed by %s handling %s", signalName(l.signal), l.lastKey)
			}
			rows = append(rows, []string{run.position.name, strconv.Itoa(l.n), clock.Stamp(l.started),
				strconv.Itoa(l.deliveries), clock.Stamp(l.ended), how})
		}
	}
	r.Table([]string{"counter position", "lifetime", "started", "deliveries", "ended", "how it ended"}, rows)
}

// read loads what the run left in its database.
func (o *poisonOptions) read(ctx context.Context, store *outbox.Store, run *poisonRun) error {
	var err error
	if run.msgs, err = store.Messages(ctx); err != nil {
		return err
	}
	if run.audit, err = store.Audit(ctx); err != nil {
		return err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return err
	}
	rows, err := store.Query(ctx, store.DB(), `SELECT MessageId, Failures FROM CatchCounters ORDER BY MessageId`)
	if err != nil {
		return fmt.Errorf("read catch counters: %w", err)
	}
	defer rows.Close()
	run.catches = map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return fmt.Errorf("read catch counters: %w", err)
		}
		run.catches[id] = n
	}
	return rows.Err()
}

// writeDatabases names each counter position's database: a line about the
// database itself, which compare skips.
func (o *poisonOptions) writeDatabases(r *report.Report, runs []*poisonRun) {
	if !runs[0].serial {
		r.Linef("Databases  on catch: %s; at delivery: %s (each a PostgreSQL schema of its own) %s",
			runs[0].position.db, runs[1].position.db, report.DatabaseMarker)
		return
	}
	r.Linef("Databases  on catch: %s.db; at delivery: %s.db (each its own SQLite file) %s",
		runs[0].position.db, runs[1].position.db, report.DatabaseMarker)
}
