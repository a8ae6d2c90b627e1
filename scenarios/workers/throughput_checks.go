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

// allDrains reports whether ok holds for every drain, and lists the
// configurations where it does not.
func allDrains(drains []*drainRun, ok func(d *drainRun) bool) (bool, string) {
	var bad []string
	for _, d := range drains {
		if !ok(d) {
			bad = append(bad, d.cfg.label())
		}
	}
	if len(bad) == 0 {
		return true, ""
	}
	return false, "; not in: " + strings.Join(bad, ", ")
}

func (o *throughputOptions) drainChecks(r *report.Report, drains []*drainRun) {
	n := o.Messages
	each := fmt.Sprintf("in each of the %d drains", len(drains))

	ok, bad := allDrains(drains, func(d *drainRun) bool {
		return d.ledger.Processed == n && d.ledger.Live == 0 && d.ledger.Undelivered == 0
	})
	r.Check("every message Processed, none lost", ok,
		fmt.Sprintf("%d/%d Processed, 0 left live, 0 without a delivery %s%s", n, n, each, bad))

	ok, bad = allDrains(drains, func(d *drainRun) bool { return d.ledger.Deliveries == n && d.ledger.Unique == n })
	r.Check("exactly once in the delivery ledger", ok,
		fmt.Sprintf("%d ledger rows for %d distinct messages %s%s", n, n, each, bad))

	ok, bad = allDrains(drains, func(d *drainRun) bool {
		return d.ledger.Attempts == n && d.ledger.MaxTries == 1 && d.ledger.DeliveredWrongTries == 0
	})
	r.Check("one claim per message (AttemptCount 1)", ok, fmt.Sprintf("AttemptCount sum %d, max 1 %s%s", n, each, bad))

	ok, bad = allDrains(drains, func(d *drainRun) bool {
		_, _, calls, refused := d.totals()
		return calls == n && refused == 0
	})
	r.Check("handler called once per message, nothing refused", ok,
		fmt.Sprintf("%d handler calls, 0 refused transitions %s%s", n, each, bad))

	ok, bad = allDrains(drains, func(d *drainRun) bool {
		claims, settlements, _, _ := d.totals()
		batches := (n + d.cfg.Batch - 1) / d.cfg.Batch
		return claims == batches+d.cfg.Workers && settlements == batches
	})
	r.Check("write transactions: ⌈N/claim⌉ claims and settlements, plus 1 empty claim per worker", ok,
		o.txText(drains)+bad)
}

// txText lists the transaction counts of the first worker count, per claim size.
func (o *throughputOptions) txText(drains []*drainRun) string {
	var parts []string
	for _, batch := range []int{1, o.Batch} {
		d := baseline(drains, o.Workers[0], batch)
		claims, settlements, _, _ := d.totals()
		parts = append(parts, fmt.Sprintf("claim %d, %d worker(s): %d claims + %d settlements", batch, o.Workers[0], claims, settlements))
	}
	return strings.Join(parts, "; ")
}

func (o *throughputOptions) overloadChecks(r *report.Report, over *overloadRun) {
	matched := 0
	for i, s := range over.samples {
		if s.Depth == over.model[i] && s.Produced == s.Processed+s.Depth {
			matched++
		}
	}
	stop := over.samples[over.stopTick]
	r.Check("queue depth = produced − capacity, every tick", matched == len(over.samples),
		fmt.Sprintf("%d/%d ticks match; %d queued when production stopped at %s", matched, len(over.samples),
			stop.Depth, clock.Stamp(stop.At)))

	growing := stop.OldestAge > 0
	for i := 1; i <= over.stopTick; i++ {
		growing = growing && over.samples[i].OldestAge >= over.samples[i-1].OldestAge
	}
	r.Check("oldest-message age grows while overloaded", growing,
		fmt.Sprintf("%s → %s over %d ticks, never falling", clock.Millis(over.samples[0].OldestAge),
			clock.Millis(stop.OldestAge), over.stopTick+1))

	last := over.samples[len(over.samples)-1]
	want := time.Duration(float64(stop.Depth) / o.capacity() * float64(time.Second))
	r.Check("backlog drains once production stops", last.Depth == 0 && last.At.Sub(stop.At) >= want,
		fmt.Sprintf("%d left at %s, %s after production stopped (%d at %s/s needs %s)", last.Depth,
			clock.Stamp(last.At), last.At.Sub(stop.At), stop.Depth, rate(o.capacity()), want))

	peak := peakAge(over)
	r.Check("oldest-message age within --max-age", peak <= o.MaxAge,
		fmt.Sprintf("peak %s, limit %s", clock.Millis(peak), clock.Millis(o.MaxAge)))

	l := over.ledger
	r.Check("every produced message processed exactly once (overload)",
		l.Processed == over.produced && l.Live == 0 && l.Deliveries == over.produced && l.Unique == over.produced && l.MaxTries == 1,
		fmt.Sprintf("%d produced, %d Processed, %d ledger rows, %d distinct, max AttemptCount %d",
			over.produced, l.Processed, l.Deliveries, l.Unique, l.MaxTries))
}

func (o *throughputOptions) recordMetrics(r *report.Report, ceiling float64, drains []*drainRun, over *overloadRun) {
	r.Metric("messages", o.Messages)
	r.Metric("workers", o.Workers)
	r.Metric("batch", o.Batch)
	r.Metric("processes", o.Processes)
	configs := make([]map[string]any, len(drains))
	for i, d := range drains {
		claims, settlements, calls, refused := d.totals()
		configs[i] = map[string]any{
			"workers": d.cfg.Workers, "batch": d.cfg.Batch, "claims": claims, "settlements": settlements,
			"handler_calls": calls, "refused": refused, "processed": d.ledger.Processed,
			"ledger_rows": d.ledger.Deliveries, "ledger_distinct": d.ledger.Unique,
			"measured_seconds": d.wall.Seconds(), "measured_msgs_per_s": d.rate(),
		}
	}
	r.Metric("drains", configs)
	r.Metric("measured_ceiling_tx_per_s", ceiling)
	stop, last := over.samples[over.stopTick], over.samples[len(over.samples)-1]
	r.Metric("overload_produced", over.produced)
	r.Metric("overload_capacity_per_s", o.capacity())
	r.Metric("overload_depth_at_stop", stop.Depth)
	r.Metric("overload_stop", clock.ISO(stop.At))
	r.Metric("overload_drained", clock.ISO(last.At))
	r.Metric("overload_peak_age_ms", peakAge(over).Milliseconds())
	r.Metric("overload_max_latency_ms", over.maxLatency.Milliseconds())
	r.Metric("overload_mean_latency_ms", over.meanLatency.Milliseconds())
	depths := make([]int, len(over.samples))
	for i, s := range over.samples {
		depths[i] = s.Depth
	}
	r.Metric("overload_peak_depth", slices.Max(depths))
}

// plotWidth is the most columns a figure draws in the text.
const plotWidth = 64

// plotColumns draws levels (a depth, an age) per tick. plot.Columns would
// sum neighbouring ticks to fit the width, which suits counts, not levels;
// this keeps the highest level of each group of ticks instead.
func plotColumns(name, title string, values []int, label func(i int) string) plot.Figure {
	per := (len(values) + plotWidth - 1) / plotWidth
	if per > 1 {
		title += fmt.Sprintf(", highest of each %d ticks", per)
	}
	var levels []int
	for i := 0; i < len(values); i += per {
		levels = append(levels, slices.Max(values[i:min(i+per, len(values))]))
	}
	return plot.Columns(name, title, levels, func(i int) string { return label(min(i*per+per-1, len(values)-1)) }, 8, len(levels))
}
