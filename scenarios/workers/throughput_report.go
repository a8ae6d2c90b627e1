package workers

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	verdictHeld   = "EVERY MESSAGE ONCE IN EVERY CONFIGURATION; OVERLOAD SHOWS AS AGE, THEN DRAINS"
	verdictBroken = "THE EXPERIMENT DID NOT HOLD"
)

func (o *throughputOptions) render(db backend, verbose bool, ceiling float64, drains []*drainRun, over *overloadRun) *report.Report {
	r := report.New(throughputName, report.Experiment)
	r.Title("Worker throughput — messages per second, what more workers buy, and a queue under overload")
	r.Linef("Scenario  %s (EXPERIMENT)", throughputName)
	r.Linef("Source    %s", scenarios.Source("workers"))
	o.writeDrainSetup(r, db)

	r.Section("Part 1 — draining the backlog: what each configuration did")
	o.writeDrainTable(r, drains, verbose)

	r.Section("The lesson: what a write transaction costs")
	o.writeLesson(r, db, drains)

	r.Section("Part 2 — production above capacity (scenario clock)")
	o.writeOverload(r, over, verbose)

	o.drainChecks(r, drains)
	o.overloadChecks(r, over)
	r.Checks("Checks")
	r.Verdict(verdictHeld, verdictBroken)

	// Measured lines come last, after every deterministic line, so that the
	// body without them is still one unbroken piece of what the terminal showed.
	r.Section("Measured on this machine (wall clock)")
	o.writeMeasured(r, db, verbose, ceiling, drains)
	scenarios.RecordMetrics(r, throughputMetrics(), throughputRun{o: o, ceiling: ceiling, drains: drains, over: over})
	return r
}

func (o *throughputOptions) writeDrainSetup(r *report.Report, db backend) {
	r.Linef("Backlog   %d messages MSG-000001..MSG-%06d, created at %s, fresh per configuration",
		o.Messages, o.Messages, clock.Stamp(clock.Start))
	database(r, db.pick("          in one SQLite file per configuration",
		"          in one PostgreSQL schema per configuration"))
	sizes := rounds(o.Messages, o.Repeats)
	r.Linef("Rounds    %d (--repeats) of %s: each writes the next part of every configuration's",
		len(sizes), roundSizes(sizes))
	r.Line("          backlog, then drains it there; in the tables' order, then the reverse, and so on")
	if len(sizes) < o.Repeats {
		r.Linef("          (--repeats %d asked for more: every round needs a message of the backlog)", o.Repeats)
	}
	r.Linef("Workers   %s at once on each backlog; the first is the speed-up's baseline", report.JoinInts(o.Workers))
	switch {
	case !db.serial:
		database(r, "          separate processes, each with its own connection, as on several hosts")
	case o.Processes:
		database(r, "          separate processes, each opening the SQLite file itself")
	default:
		database(r, "          goroutines sharing one store (one pool of connections) on the SQLite file")
	}
	r.Linef("Claims    1 message per claim, then %d (--batch); lease %s, never reached: nothing crashes here", o.Batch, o.Lease)
	delay := "returns at once"
	if o.HandlerDelay > 0 {
		delay = "waits " + o.HandlerDelay.String() + " of real time per message, outside any transaction"
	}
	r.Linef("Handler   %s; writes one Deliveries row in the transaction that marks it Processed", delay)
	r.Line("Engine    a batch step: one UPDATE ... RETURNING claims the batch, one transaction settles it;")
	r.Line("          a worker stops the round at its first empty claim")
	database(r, db.pick("          both BEGIN IMMEDIATE: one connection at a time holds SQLite's write lock",
		"          both READ COMMITTED; a claim skips rows others hold (FOR UPDATE SKIP LOCKED)"))
}

func (o *throughputOptions) writeDrainTable(r *report.Report, drains []*drainRun, verbose bool) {
	r.Table(metricColumns(o.drainMetrics(verbose), drains))
	r.Line("Claim tx counts each worker's empty claim of each round. Processed and the ledger rows are read")
	if verbose {
		r.Line("back from the database, and so is AttemptCount.")
	} else {
		r.Line("back from the database (--verbose adds the handler calls and AttemptCount; the checks judge both).")
	}
}

func (o *throughputOptions) writeLesson(r *report.Report, db backend, drains []*drainRun) {
	if !db.serial {
		database(r, "Every claim and settlement is a transaction, and PostgreSQL runs many at once: a claim")
		database(r, "locks its rows (FOR UPDATE SKIP LOCKED) and the next worker skips them, so workers write")
		database(r, "side by side until the CPU, or the WAL flush each commit waits for, limits them.")
		database(r, "Fewer transactions per message pay every time, since each commit waits for a flush.")
	} else {
		database(r, "Every claim and settlement is a write transaction (BEGIN IMMEDIATE), and SQLite lets")
		database(r, "one connection at a time hold the write lock: a second worker, or process, waits for it.")
		database(r, "Workers overlap only the handler, outside the transaction (try --handler-delay 1ms).")
		database(r, "Fewer write transactions per message pay every time.")
	}
	r.Linef("Write transactions per message: claims of %d spent %s here, claims of 1 spent %s.",
		o.Batch, perMessage(baseline(drains, o.Workers[0], o.Batch), o.Messages), perMessage(baseline(drains, o.Workers[0], 1), o.Messages))
	r.Line("The messages per second each configuration reached are at the end, after the verdict: they")
	r.Line("differ on every run and machine, so compare skips them (the report file marks them " + report.MeasuredMarker + ").")
}

func (o *throughputOptions) writeOverload(r *report.Report, over *overloadRun, verbose bool) {
	capacity := o.capacity()
	r.Linef("Producer  %d messages/s for %s: %d messages OVL-000001..OVL-%06d, a transaction a tick",
		o.ProduceRate, o.ProduceFor, o.total(), o.total())
	r.Linef("Consumers %d × %d messages per %s tick (service time %s) = %s messages/s",
		o.Consumers, o.perTick(), o.Tick, o.ServiceTime, rate(capacity))
	if o.overfed() {
		r.Linef("Overload  %s messages/s more than the consumers finish; depth and age read from the database",
			rate(float64(o.ProduceRate)-capacity))
	} else {
		r.Linef("Overload  none: %d messages/s is not above the consumers' %s/s, so no backlog can build up;",
			o.ProduceRate, rate(capacity))
		r.Line("          depth and age are still read from the database every tick; growth and drain are not exercised")
	}
	r.Linef("Age limit %s (--max-age): the oldest message must never wait longer", clock.Millis(o.MaxAge))
	r.Line("")
	every := max(1, int(time.Second/o.Tick))
	var rows [][]string
	for i, s := range over.samples {
		note := ""
		switch {
		case i == 0:
			note = "first tick"
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
	r.Linef("Sampled from the database at each of the %d ticks (%d while producing); shown: the first,",
		len(over.samples), over.stopTick+1)
	r.Line("one a second, and the ticks where production stops and where the run ends.")
	r.Line("")
	depths, ages := make([]int, len(over.samples)), make([]int, len(over.samples))
	for i, s := range over.samples {
		depths[i], ages[i] = s.Depth, int(s.OldestAge.Milliseconds())
	}
	label := func(i int) string { return clock.Stamp(over.samples[i].At) }
	r.Figure(plotColumns("queue-depth", "Queue depth per tick (messages)", depths, label,
		plot.Axes{X: "scenario time (end of each tick)", Y: "messages waiting"}))
	r.Line("")
	age := plotColumns("oldest-age", "Oldest message age per tick (ms)", ages, label,
		plot.Axes{X: "scenario time (end of each tick)", Y: "oldest message age (ms)"})
	if !verbose {
		age.Text = "" // its SVG is written beside the report; the table above has its numbers
	}
	r.Figure(age)
	if verbose {
		r.Line("")
	}
	stop, last := over.samples[over.stopTick], over.samples[len(over.samples)-1]
	if last.Depth == 0 {
		r.Linef("Production stopped at %s with %d queued; the backlog drained at %s, %s on.",
			clock.Stamp(stop.At), stop.Depth, clock.Stamp(last.At), last.At.Sub(stop.At))
	} else {
		r.Linef("Production stopped at %s with %d queued; at %s, %d ticks after the arithmetic says the queue",
			clock.Stamp(stop.At), stop.Depth, clock.Stamp(last.At), len(over.samples)-len(over.plan.depths))
		r.Linef("is empty, %d messages were still waiting, and the run stopped there.", last.Depth)
	}
	r.Linef("Oldest message age peaked at %s; creation to Processed took at worst %s, mean %s.",
		clock.Millis(peakAge(over)), clock.Millis(over.maxLatency), clock.Millis(over.meanLatency))
	r.Line("Depth says how much waits; age, how long the oldest has waited: what a user feels. Both")
	r.Line("grow while production outpaces the consumers; only spare capacity (here, the producer")
	r.Line("stopping) drains them.")
	if !o.overfed() {
		r.Line("This run's production never outpaced the consumers, so neither grew: it shows no overload.")
	}
}

// roundSizes says how many messages a round holds: "28" or "27–28".
func roundSizes(sizes []int) string {
	lo, hi := slices.Min(sizes), slices.Max(sizes)
	if lo == hi {
		return report.Plural(lo, "message")
	}
	return fmt.Sprintf("%d–%d messages", lo, hi)
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

// backend is what the report says of the run's database: whether its
// writers take turns (SQLite's, see dialect.Dialect.SerialWriters).
type backend struct{ serial bool }

// pick returns sqlite's words or postgres's, for the run's database.
func (b backend) pick(sqlite, postgres string) string {
	if !b.serial {
		return postgres
	}
	return sqlite
}

// database writes a line that describes the database itself: compare skips it.
func database(r *report.Report, line string) { r.Line(line + " " + report.DatabaseMarker) }
