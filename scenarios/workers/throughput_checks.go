package workers

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/plot"
	"outboxlab/core/report"
)

// totals sums a drain's workers: claim and settlement transactions, handler
// calls and refused transitions.
func (d *drainRun) totals() (claims, settlements, calls, refused int) {
	for _, t := range d.tallies {
		claims += t.Claims
		settlements += t.Settlements
		calls += t.Calls
		refused += t.Refused
	}
	return claims, settlements, calls, refused
}

// checkDrains records the invariant name, judging every drain and saying
// what each showed: the value when all drains show the same, otherwise the
// most common one and then each drain that differs, by configuration.
func checkDrains(r *report.Report, drains []*drainRun, name string, judge func(d *drainRun) (ok bool, value string)) {
	ok := true
	metrics := make([]string, len(drains))
	count := map[string]int{}
	for i, d := range drains {
		good, f := judge(d)
		ok, metrics[i] = ok && good, f
		count[f]++
	}
	common := metrics[0]
	for _, f := range metrics {
		if count[f] > count[common] {
			common = f
		}
	}
	if count[common] == len(drains) {
		r.Invariant(name, ok, fmt.Sprintf("%s in all %d configurations", common, len(drains)))
		return
	}
	parts := []string{fmt.Sprintf("%s in %d of the %d configurations", common, count[common], len(drains))}
	for i, d := range drains {
		if metrics[i] != common {
			parts = append(parts, d.cfg.label()+": "+metrics[i])
		}
	}
	r.Invariant(name, ok, strings.Join(parts, "; "))
}

// drainChecks are invariants: they hold in every configuration, whatever
// it measured. They judge each drain by what its file holds once the
// workers are done: the outbox rows, the delivery ledger and its settlements. Only the
// handler calls and the claims come from the workers' side: the handler is
// the scenario's stand-in for a provider and counts its own calls, and the
// claims are the calls the worker loop made.
func (o *throughputOptions) drainChecks(r *report.Report, drains []*drainRun) {
	n := o.Messages
	checkDrains(r, drains, "every message Processed, none lost", func(d *drainRun) (bool, string) {
		l := d.ledger
		f := fmt.Sprintf("%d/%d Processed, %d live, %d undelivered", l.Processed, l.Total, l.Live, l.Undelivered)
		if l.Total != n {
			f += fmt.Sprintf(" (the backlog was %d)", n)
		}
		return l.Total == n && l.Processed == n && l.Live == 0 && l.Undelivered == 0, f
	})
	checkDrains(r, drains, "exactly once in the delivery ledger", func(d *drainRun) (bool, string) {
		l := d.ledger
		return l.Deliveries == n && l.Unique == n, fmt.Sprintf("%d ledger rows for %d distinct messages", l.Deliveries, l.Unique)
	})
	checkDrains(r, drains, "one claim per message (AttemptCount 1)", func(d *drainRun) (bool, string) {
		l := d.ledger
		f := fmt.Sprintf("AttemptCount sum %d, max %d", l.Attempts, l.MaxTries)
		if l.DeliveredWrongTries > 0 {
			f += fmt.Sprintf(", %d deliveries recorded under another attempt", l.DeliveredWrongTries)
		}
		return l.Attempts == n && l.MaxTries == 1 && l.DeliveredWrongTries == 0, f
	})
	checkDrains(r, drains, "handler called once per message, every call settled", func(d *drainRun) (bool, string) {
		_, _, calls, _ := d.totals()
		return calls == n && d.ledger.Deliveries == calls, fmt.Sprintf("%d calls, %d ledger rows", calls, d.ledger.Deliveries)
	})
	o.transactionCheck(r, drains)
}

// transactionCheck holds each drain to one settlement transaction in its
// ledger per claim the workers made, none larger than a claim, ⌈n/claim⌉ of
// them per round of n messages with one worker (at least that many with
// several), plus the one empty claim that stops each worker each round.
func (o *throughputOptions) transactionCheck(r *report.Report, drains []*drainRun) {
	value := func(d *drainRun) string {
		claims, _, _, _ := d.totals()
		return fmt.Sprintf("claim %d, %s: %d claims, %d ledger settlements of ≤ %s",
			d.cfg.Batch, report.Plural(d.cfg.Workers, "worker"), claims, d.ledger.Settlements, report.Plural(d.ledger.LargestSettlement, "message"))
	}
	ok := true
	var bad []string
	for _, d := range drains {
		claims, settled, _, _ := d.totals()
		l := d.ledger
		// One worker fills every claim but the last; several may split one:
		// on PostgreSQL a row another worker's claim has just taken drops out
		// of a SKIP LOCKED batch, so that batch settles fewer.
		want := 0
		for _, n := range rounds(o.Messages, o.Repeats) {
			want += ceilDiv(n, d.cfg.Batch)
		}
		empty := d.cfg.Workers * len(rounds(o.Messages, o.Repeats))
		if l.Settlements < want || d.cfg.Workers == 1 && l.Settlements != want || l.LargestSettlement > d.cfg.Batch ||
			settled != l.Settlements || claims != l.Settlements+empty {
			ok = false
			bad = append(bad, value(d))
		}
	}
	var parts []string
	for _, batch := range []int{1, o.Batch} {
		if d := baseline(drains, o.Workers[0], batch); d != nil {
			parts = append(parts, value(d))
		}
	}
	detail := strings.Join(parts, "; ")
	if len(bad) > 0 {
		detail += "; but " + strings.Join(bad, "; ")
	}
	r.Invariant("write transactions: a settlement per claim, ⌈n/claim⌉ a round with 1 worker, an empty claim each", ok, detail)
}

// overloadChecks judge part 2. What it demonstrates: the depth read from
// the file follows the arithmetic every tick, and, when production is above
// the consumers' capacity, the oldest message's age grows and the backlog
// drains once production stops; with production at or below capacity those
// two were not exercised. Invariants: the age stays within --max-age, and
// every produced message is processed once.
func (o *throughputOptions) overloadChecks(r *report.Report, over *overloadRun) {
	planned := over.plan.depths
	matched := 0
	for i, s := range over.samples {
		if i < len(planned) && s.Depth == planned[i] && s.Produced == s.Processed+s.Depth {
			matched++
		}
	}
	ticks := max(len(over.samples), len(planned))
	stop := over.samples[over.stopTick]
	r.Check(checkNameDepth, matched == ticks,
		fmt.Sprintf("%d/%d ticks match; %d queued at %s, when production stopped", matched, ticks,
			stop.Depth, clock.Stamp(stop.At)))

	last := over.samples[len(over.samples)-1]
	if !o.overfed() {
		why := fmt.Sprintf("%d messages/s produced is not above the consumers' %s/s, so no queue could build up; "+
			"a --produce-rate above %s overloads them", o.ProduceRate, rate(o.capacity()), rate(o.capacity()))
		r.NotExercised(checkNameAgeGrows, why)
		r.NotExercised(checkNameDrains, why)
	} else {
		r.Check(o.ageGrowth(over))
		want := time.Duration(float64(stop.Depth) / o.capacity() * float64(time.Second))
		r.Check(checkNameDrains, last.Depth == 0 && last.At.Sub(stop.At) >= want,
			fmt.Sprintf("%d left at %s, %s after the stop (%d at %s/s needs %s)", last.Depth,
				clock.Stamp(last.At), last.At.Sub(stop.At), stop.Depth, rate(o.capacity()), want))
	}

	peak := peakAge(over)
	r.Invariant("oldest-message age within --max-age", peak <= o.MaxAge,
		fmt.Sprintf("peak %s, limit %s", clock.Millis(peak), clock.Millis(o.MaxAge)))

	l := over.ledger
	detail := fmt.Sprintf("%d produced, %d Processed, %d in the ledger (%d distinct), max AttemptCount %d",
		l.Total, l.Processed, l.Deliveries, l.Unique, l.MaxTries)
	if l.Total != o.total() {
		detail += fmt.Sprintf(" (the producer was to write %d)", o.total())
	}
	r.Invariant("every produced message processed exactly once (overload)",
		l.Total == o.total() && l.Processed == l.Total && l.Live == 0 && l.Deliveries == l.Total && l.Unique == l.Total && l.MaxTries == 1,
		detail)
}

// The names of part 2's demonstrating checks.
const (
	checkNameDepth    = "queue depth = produced − capacity, every tick"
	checkNameAgeGrows = "oldest-message age grows while overloaded"
	checkNameDrains   = "backlog drains once production stops"
)

// ageGrowth is the check that the oldest message's age, as sampled from the
// file, never fell while production ran, and that something was waiting when
// it stopped.
func (o *throughputOptions) ageGrowth(over *overloadRun) (string, bool, string) {
	const name = checkNameAgeGrows
	stop := over.samples[over.stopTick]
	for i := 1; i <= over.stopTick; i++ {
		if prev, s := over.samples[i-1], over.samples[i]; s.OldestAge < prev.OldestAge {
			return name, false, fmt.Sprintf("fell from %s to %s at %s", clock.Millis(prev.OldestAge),
				clock.Millis(s.OldestAge), clock.Stamp(s.At))
		}
	}
	if stop.Depth == 0 {
		return name, false, fmt.Sprintf("nothing was waiting when production stopped at %s: %d messages/s produced, %s/s consumed",
			clock.Stamp(stop.At), o.ProduceRate, rate(o.capacity()))
	}
	return name, true, fmt.Sprintf("%s → %s over %d ticks, never falling", clock.Millis(over.samples[0].OldestAge),
		clock.Millis(stop.OldestAge), over.stopTick+1)
}

// plotWidth is the most columns a picture draws in the text.
const plotWidth = 64

// plotColumns draws levels (a depth, an age) per tick. plot.Columns would
// sum neighbouring ticks to fit the width, which suits counts, not levels;
// this keeps the highest level of each group of ticks instead.
func plotColumns(name, title string, values []int, label func(i int) string, axes plot.Axes) plot.Figure {
	per := (len(values) + plotWidth - 1) / plotWidth
	if per > 1 {
		title += fmt.Sprintf(", highest of each %d ticks", per)
	}
	var levels []int
	for i := 0; i < len(values); i += per {
		levels = append(levels, slices.Max(values[i:min(i+per, len(values))]))
	}
	return plot.Columns(name, title, levels, func(i int) string { return label(min(i*per+per-1, len(values)-1)) }, 8, len(levels), axes)
}
