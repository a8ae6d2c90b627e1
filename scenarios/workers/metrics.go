package workers

import (
	"fmt"
	"slices"
	"strconv"

	"outboxlab/core/clock"
	"outboxlab/scenarios"
)

// drainMetric is one metric of a drain: a column of a drain table and a key
// of the drain's entry in the JSON "drains" list.
type drainMetric = scenarios.Metric[*drainRun]

// drainMetrics are what each drain's file and workers showed; with full,
// the table also shows the handler calls and the attempt counts (the checks
// judge them either way).
func (o *throughputOptions) drainMetrics(full bool) []drainMetric {
	only := func(label string) string {
		if full {
			return label
		}
		return ""
	}
	total := func(pick func(claims, settlements, calls, refused int) int) func(*drainRun) any {
		return func(d *drainRun) any { return pick(d.totals()) }
	}
	return []drainMetric{
		{Label: "Configuration", Show: func(d *drainRun) string { return d.cfg.label() }},
		{Key: "workers", Value: func(d *drainRun) any { return d.cfg.Workers }},
		{Key: "batch", Value: func(d *drainRun) any { return d.cfg.Batch }},
		{Label: "Claim tx", Key: "claims", Value: total(func(c, _, _, _ int) int { return c })},
		{Label: "Settlement tx", Key: "settlements", Value: total(func(_, s, _, _ int) int { return s })},
		{Label: "Tx/message", Show: func(d *drainRun) string { return perMessage(d, o.Messages) }},
		{Label: only("Handler calls"), Key: "handler_calls", Value: total(func(_, _, calls, _ int) int { return calls })},
		{Key: "refused", Value: total(func(_, _, _, refused int) int { return refused })},
		{Label: "Processed", Key: "processed", Value: func(d *drainRun) any { return d.ledger.Processed }},
		{Label: "Ledger rows", Key: "ledger_rows", Value: func(d *drainRun) any { return d.ledger.Deliveries },
			Show: func(d *drainRun) string { return fmt.Sprintf("%d (%d distinct)", d.ledger.Deliveries, d.ledger.Unique) }},
		{Key: "ledger_distinct", Value: func(d *drainRun) any { return d.ledger.Unique }},
		{Key: "ledger_settlements", Value: func(d *drainRun) any { return d.ledger.Settlements }},
		{Label: only("AttemptCount sum"), Show: func(d *drainRun) string {
			return fmt.Sprintf("%d (max %d)", d.ledger.Attempts, d.ledger.MaxTries)
		}},
	}
}

// measuredMetrics are each drain's wall-clock metrics: the median of its
// rounds and their range, and against the first worker count's drain with
// the same claim size, round by round.
func (o *throughputOptions) measuredMetrics(drains []*drainRun) []drainMetric {
	against := func(d *drainRun) (comparison, bool) {
		base := baseline(drains, o.Workers[0], d.cfg.Batch)
		if base == nil || base == d {
			return comparison{}, false
		}
		return compare(d, base), true
	}
	return []drainMetric{
		{Label: "Configuration", Show: func(d *drainRun) string { return d.cfg.label() }},
		{Key: "measured_round_seconds", Value: func(d *drainRun) any {
			out := make([]float64, len(d.rounds))
			for i, r := range d.rounds {
				out[i] = r.wall.Seconds()
			}
			return out
		}},
		{Label: "Messages/s", Key: "measured_msgs_per_s", Value: func(d *drainRun) any { return d.rate() },
			Show: func(d *drainRun) string { return fmt.Sprintf("%.0f", d.rate()) }},
		{Label: "Range", Show: func(d *drainRun) string {
			s := spreadOf(d.rates())
			return fmt.Sprintf("%.0f–%.0f", s.lo, s.hi)
		}},
		{Key: "measured_msgs_per_s_min", Value: func(d *drainRun) any { return spreadOf(d.rates()).lo }},
		{Key: "measured_msgs_per_s_max", Value: func(d *drainRun) any { return spreadOf(d.rates()).hi }},
		{Label: "Speed-up", Key: "measured_speedup", Value: func(d *drainRun) any {
			if c, ok := against(d); ok {
				return c.ratio.median
			}
			return 1.0
		}, Show: func(d *drainRun) string {
			if c, ok := against(d); ok {
				return fmt.Sprintf("%.2f×", c.ratio.median)
			}
			return "1.00×"
		}},
		{Label: "Judged", Key: "measured_difference", Value: func(d *drainRun) any {
			if c, ok := against(d); ok {
				return c.diff.word()
			}
			return "baseline"
		}},
		{Label: "Per worker", Show: func(d *drainRun) string {
			lo, hi := d.tallies[0].Processed, d.tallies[0].Processed
			for _, t := range d.tallies {
				lo, hi = min(lo, t.Processed), max(hi, t.Processed)
			}
			if lo == hi {
				return strconv.Itoa(lo)
			}
			return fmt.Sprintf("%d–%d", lo, hi)
		}},
	}
}

// perMessage is a drain's write transactions per message, claims and settlements.
func perMessage(d *drainRun, messages int) string {
	claims, settlements, _, _ := d.totals()
	return fmt.Sprintf("%.2f", float64(claims+settlements)/float64(messages))
}

// throughputRun is everything one run of worker-throughput found.
type throughputRun struct {
	o       *throughputOptions
	ceiling float64
	drains  []*drainRun
	over    *overloadRun
}

// throughputMetrics are the run's JSON metrics; the drains' own are the
// drain and measured metrics of each.
func throughputMetrics() []scenarios.Metric[throughputRun] {
	stop := func(x throughputRun) sample { return x.over.samples[x.over.stopTick] }
	return []scenarios.Metric[throughputRun]{
		{Key: "messages", Value: func(x throughputRun) any { return x.o.Messages }},
		{Key: "workers", Value: func(x throughputRun) any { return x.o.Workers }},
		{Key: "batch", Value: func(x throughputRun) any { return x.o.Batch }},
		{Key: "processes", Value: func(x throughputRun) any { return x.o.Processes }},
		{Key: "drains", Value: func(x throughputRun) any {
			return metricRecords(append(x.o.drainMetrics(true), x.o.measuredMetrics(x.drains)...), x.drains)
		}},
		{Key: "measured_ceiling_tx_per_s", Value: func(x throughputRun) any { return x.ceiling }},
		{Key: "overload_produced", Value: func(x throughputRun) any { return x.over.ledger.Total }},
		{Key: "overload_capacity_per_s", Value: func(x throughputRun) any { return x.o.capacity() }},
		{Key: "overload_depth_at_stop", Value: func(x throughputRun) any { return stop(x).Depth }},
		{Key: "overload_stop", Value: func(x throughputRun) any { return clock.ISO(stop(x).At) }},
		{Key: "overload_drained", Value: func(x throughputRun) any { return clock.ISO(x.over.samples[len(x.over.samples)-1].At) }},
		{Key: "overload_peak_age_ms", Value: func(x throughputRun) any { return peakAge(x.over).Milliseconds() }},
		{Key: "overload_max_latency_ms", Value: func(x throughputRun) any { return x.over.maxLatency.Milliseconds() }},
		{Key: "overload_mean_latency_ms", Value: func(x throughputRun) any { return x.over.meanLatency.Milliseconds() }},
		{Key: "overload_peak_depth", Value: func(x throughputRun) any {
			depths := make([]int, len(x.over.samples))
			for i, s := range x.over.samples {
				depths[i] = s.Depth
			}
			return slices.Max(depths)
		}},
	}
}

// The drains are tables the other way round from scenarios.MetricTable: a
// row per run and a column per metric, and their JSON is a list with an
// entry per run. These two render metrics that way.

// metricColumns returns the table of runs: the labelled metrics' labels as
// the header, and a row of their cells for each run.
func metricColumns[F any](metrics []scenarios.Metric[F], runs []F) (header []string, rows [][]string) {
	for _, f := range metrics {
		if f.Label != "" {
			header = append(header, f.Label)
		}
	}
	for _, x := range runs {
		var row []string
		for _, f := range metrics {
			if f.Label == "" {
				continue
			}
			if f.Show != nil {
				row = append(row, f.Show(x))
			} else {
				row = append(row, fmt.Sprint(f.Value(x)))
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}

// metricRecords returns, for each run, its keyed metrics' JSON values by key.
func metricRecords[F any](metrics []scenarios.Metric[F], runs []F) []map[string]any {
	out := make([]map[string]any, len(runs))
	for i, x := range runs {
		out[i] = map[string]any{}
		for _, f := range metrics {
			switch {
			case f.Key == "":
			case f.Value != nil:
				out[i][f.Key] = f.Value(x)
			default:
				out[i][f.Key] = f.Show(x)
			}
		}
	}
	return out
}
