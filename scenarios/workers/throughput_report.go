package workers

import (
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	verdictHeld   = "EVERY MESSAGE ONCE IN EVERY CONFIGURATION; OVERLOAD SHOWS AS AGE, THEN DRAINS ✅"
	verdictBroken = "AN INVARIANT DID NOT HOLD — SEE THE FAILED CHECKS ❌"
)

func (o *throughputOptions) render(db backend, ceiling float64, drains []*drainRun, over *overloadRun) *report.Report {
	r := report.New(throughputName, report.Experiment)
	r.Title("Worker throughput — messages per second, what more workers buy, and a queue under overload")
	r.Linef("Scenario  %s (EXPERIMENT)", throughputName)
	o.writeDrainSetup(r, db)

	r.Section("Part 1 — draining the backlog: what each configuration did")
	o.writeDrainTable(r, drains)

	r.Section("The lesson: what a write transaction costs")
	o.writeLesson(r, db, drains)

	r.Section("Part 2 — production above capacity (scenario clock)")
	o.writeOverload(r, over)

	o.drainChecks(r, drains)
	o.overloadChecks(r, over)
	r.Checks("Safety checks")
	r.Verdict(verdictHeld, verdictBroken)

	// Measured lines come last, after every deterministic line, so that the
	// body without them is still one unbroken piece of what the terminal showed.
	r.Section("Measured on this machine (wall clock)")
	o.writeMeasured(r, db, ceiling, drains)
	scenarios.RecordFigures(r, throughputFigures(), throughputRun{o: o, ceiling: ceiling, drains: drains, over: over})
	return r
}

func (o *throughputOptions) writeDrainSetup(r *report.Report, db backend) {
	r.Linef("Backlog   %d messages MSG-000001..MSG-%06d, all created at %s, fresh for each configuration",
		o.Messages, o.Messages, clock.Stamp(clock.Start))
	database(r, db.pick("          copied into one SQLite file per configuration from one seeded file",
		"          seeded into one PostgreSQL schema per configuration by the same code"))
	r.Linef("Workers   %s at once on each backlog; the first is the speed-up's baseline", report.JoinInts(o.Workers))
	switch {
	case db.postgres:
		database(r, "          separate processes, each with its own connection, as on several hosts")
	case o.Processes:
		database(r, "          separate processes, each opening the SQLite file itself")
	default:
		database(r, "          goroutines sharing one store (one *sql.DB) on the SQLite file")
	}
	r.Linef("Claims    1 message per claim, then %d (--batch); lease %s, never reached: nothing crashes here", o.Batch, o.Lease)
	delay := "returns at once"
	if o.HandlerDelay > 0 {
		delay = "waits " + o.HandlerDelay.String() + " of real time per message, outside any transaction"
	}
	r.Linef("Handler   %s; its business write is one Deliveries row, committed with the Processed transition", delay)
	r.Line("Engine    worker.StepBatch: one UPDATE ... RETURNING claims the batch, one transaction settles it;")
	r.Line("          a worker stops at its first empty claim")
	database(r, db.pick("          both are BEGIN IMMEDIATE transactions: one connection at a time holds SQLite's write lock",
		"          both are READ COMMITTED transactions; a claim skips rows others hold (FOR UPDATE SKIP LOCKED)"))
}

func (o *throughputOptions) writeDrainTable(r *report.Report, drains []*drainRun) {
	r.Table(figureColumns(o.drainFigures(), drains))
	r.Line("Claim tx counts each worker's last, empty claim. Processed, ledger rows and AttemptCount are read back from the database.")
}

func (o *throughputOptions) writeLesson(r *report.Report, db backend, drains []*drainRun) {
	if db.postgres {
		database(r, "Every claim and every settlement is a transaction of its own, and PostgreSQL lets many")
		database(r, "run at once: a claim locks the rows it takes (FOR UPDATE SKIP LOCKED) and the next")
		database(r, "worker skips them, so workers write side by side until the CPU, or the WAL flush that")
		database(r, "every commit waits for, limits them. More workers pay while the server has room;")
		database(r, "fewer transactions per message pay every time, since each commit waits for a flush.")
	} else {
		database(r, "Every claim and every settlement is a write transaction, begun with BEGIN IMMEDIATE,")
		database(r, "and SQLite lets one connection at a time hold the write lock. A second worker does not")
		database(r, "write beside the first: it waits in busy_timeout until the lock is free, and so does")
		database(r, "a second process. Workers overlap only what happens outside a transaction, the handler.")
		database(r, "More workers pay when handlers are slow (try --handler-delay 1ms); on a fast handler")
		database(r, "they add waiting, not writing. Fewer write transactions per message pay every time.")
	}
	r.Linef("Write transactions per message: claims of %d spent %s here, claims of 1 spent %s.",
		o.Batch, perMessage(baseline(drains, o.Workers[0], o.Batch), o.Messages), perMessage(baseline(drains, o.Workers[0], 1), o.Messages))
	r.Line("The messages per second each configuration reached are at the end of the report, after the verdict:")
	r.Line("they differ on every run and every machine, so each of those lines ends with " + report.MeasuredMarker + " and compare skips it.")
}

func (o *throughputOptions) writeOverload(r *report.Report, over *overloadRun) {
	capacity := o.capacity()
	r.Linef("Producer  %d messages/s for %s: %d messages OVL-000001..OVL-%06d, each tick's in one transaction",
		o.ProduceRate, o.ProduceFor, o.total(), o.total())
	r.Linef("Consumers %d × %d messages per %s tick (service time %s) = %s messages/s",
		o.Consumers, o.perTick(), o.Tick, o.ServiceTime, rate(capacity))
	if o.overfed() {
		r.Linef("Overload  %s messages/s more than the consumers finish; depth and age are read from the database every tick",
			rate(float64(o.ProduceRate)-capacity))
	} else {
		r.Linef("Overload  none: %d messages/s is not above the consumers' %s/s, so no backlog can build up;",
			o.ProduceRate, rate(capacity))
		r.Line("          depth and age are still read from the database every tick, and the growth check fails")
	}
	r.Line("")
	every := max(1, int(time.Second/o.Tick))
	var rows [][]string
	for i, s := range over.samples {
		note := ""
		switch {
		case i == over.stopTick:
			note = "production stops"
		case i == len(over.samples)-1 && s.Depth == 0:
			note = "drained"
		case i == len(over.samples)-1:
			note = "run ends, not drained"
		case (i+1)%every != 0:
			continue
		}
		rows = append(rows, []string{clock.Stamp(s.At), strconv.Itoa(s.Produced), strconv.Itoa(s.Processed),
			strconv.Itoa(s.Depth), ageText(s), note})
	}
	r.Table([]string{"Scenario time", "Produced", "Processed", "Queue depth", "Oldest message age", ""}, rows)
	r.Line("")
	depths, ages := make([]int, len(over.samples)), make([]int, len(over.samples))
	for i, s := range over.samples {
		depths[i], ages[i] = s.Depth, int(s.OldestAge.Milliseconds())
	}
	label := func(i int) string { return clock.Stamp(over.samples[i].At) }
	r.Figure(plotColumns("queue-depth", "Queue depth per tick (messages)", depths, label))
	r.Line("")
	r.Figure(plotColumns("oldest-age", "Oldest message age per tick (ms)", ages, label))
	r.Line("")
	stop, last := over.samples[over.stopTick], over.samples[len(over.samples)-1]
	if last.Depth == 0 {
		r.Linef("Production stopped at %s with %d queued; the backlog drained at %s, %s later.",
			clock.Stamp(stop.At), stop.Depth, clock.Stamp(last.At), last.At.Sub(stop.At))
	} else {
		r.Linef("Production stopped at %s with %d queued; at %s, %d ticks after the arithmetic says the queue",
			clock.Stamp(stop.At), stop.Depth, clock.Stamp(last.At), len(over.samples)-len(over.plan.depths))
		r.Linef("is empty, %d messages were still waiting, and the run stopped there.", last.Depth)
	}
	r.Linef("Oldest message age peaked at %s; latency from creation to Processed: worst %s, mean %s.",
		clock.Millis(peakAge(over)), clock.Millis(over.maxLatency), clock.Millis(over.meanLatency))
	r.Line("Depth says how much is waiting; age says how long the oldest has waited, which is what a user feels.")
	r.Line("Both grow by the same arithmetic every tick while production outpaces the consumers, and only")
	r.Line("capacity above the production rate brings them back: here, the producer stopping.")
	if !o.overfed() {
		r.Line("This run's production never outpaced the consumers, so neither grew: it shows no overload.")
	}
}

func ageText(s sample) string {
	if s.Depth == 0 {
		return "— (empty)"
	}
	return clock.Millis(s.OldestAge)
}

func peakAge(over *overloadRun) time.Duration {
	var peak time.Duration
	for _, s := range over.samples {
		peak = max(peak, s.OldestAge)
	}
	return peak
}

// rate prints messages per second without a useless fraction.
func rate(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// backend is what the report says of the run's database.
type backend struct{ postgres bool }

// pick returns sqlite's words or postgres's, for the run's database.
func (b backend) pick(sqlite, postgres string) string {
	if b.postgres {
		return postgres
	}
	return sqlite
}

// database writes a line that describes the database itself: compare skips it.
func database(r *report.Report, line string) { r.Line(line + " " + report.DatabaseMarker) }
