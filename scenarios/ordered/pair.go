package ordered

import (
	"context"
	"fmt"

	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// side is one scenario of a BEFORE/AFTER pair: its name, its report title,
// the design it runs and, for when it is the scenario being run, what its
// report adds to the pair's skeleton.
type side struct {
	name, title string
	design      design
	extra       func(*page, *run) // sections between the queues and the states; may be nil
	tail        func(*page, *run) // sections after the pair table; may be nil
	checks      func(*page, *run)
	pass, fail  string // the verdict's two lines
	// passFor, when set, words the pass line from what the run showed.
	passFor func(*run) string
}

// reportPair writes the report every pair scenario has, as a
// scenarios.PairReport: the own side runs on the scenario's database, the
// other beside it, sharing its in-order reference; then header, setup,
// schema, log, timeline, queues, the own side's extra sections, states, the
// pair table, its tail sections, its checks, the verdict and the metrics.
func (o *options) reportPair(ctx context.Context, env scenarios.Env, before, after side, ownIsAfter bool) (*report.Report, error) {
	own := before
	if ownIsAfter {
		own = after
	}
	var ref []orderState // the first run's in-order reference, shared by the second
	var r *page          // the report, once Setup has started it
	return scenarios.PairReport[*run]{
		Pair:   scenarios.Pair{Before: before.name, After: after.name, BeforeTitle: before.title, AfterTitle: after.title},
		After:  ownIsAfter,
		Family: "ordered",
		Drive: func(ctx context.Context, db dialect.Database, isAfter bool) (*run, error) {
			d := before.design
			if isAfter {
				d = after.design
			}
			run, err := o.executeAt(ctx, env, db, d, ref)
			if err == nil {
				ref = run.inOrder
			}
			return run, err
		},
		Setup: func(rep *report.Report, run *run) {
			r = &page{Report: rep, verbose: env.Verbose}
			o.writeSetup(r, run)
		},
		Story: func(_ *report.Report, run, _, _ *run) {
			scenarios.SchemaSection(r.Report, run.tables)
			o.writeLog(r, run.log)
			o.writeTimeline(r, run, nil)
			writeQueues(r, run)
			if own.extra != nil {
				own.extra(r, run)
			}
			o.writeStates(r, run)
			r.Figure(o.picture("timeline", "Consumer events by partition, until the consumer went idle", run))
		},
		Metrics: o.metrics(),
		Compare: func(_ *report.Report, b, a *run) { o.writePairTable(r, r.Kind, b, a) },
		AfterCompare: func(_ *report.Report, run *run) {
			if own.tail != nil {
				own.tail(r, run)
			}
		},
		ChecksTitle: "Safety checks",
		Checks:      func(_ *report.Report, run, _, _ *run) { own.checks(r, run) },
		Verdict: func(run *run) (string, string) {
			if own.passFor != nil {
				return own.passFor(run), own.fail
			}
			return own.pass, own.fail
		},
	}.Run(ctx, env)
}

// writePairTable compares a BEFORE and an AFTER design that ran on the same
// log in one invocation: the rows of o.metrics that have a label.
func (o *options) writePairTable(r *page, own report.Kind, before, after *run) {
	metrics := o.metrics()
	if r.verbose {
		r.Section("Real BEFORE vs AFTER figures")
	} else {
		r.Section("Real BEFORE vs AFTER figures (where they differ; --verbose shows all)")
		metrics = differing(metrics, before, after)
	}
	r.Linef("Both designs ran in this invocation on the same log; this scenario's own run is the %s column.", own)
	scenarios.MetricTable(r.Report, []string{"Metric (real run)", "BEFORE", "AFTER"}, metrics, before, after)
}

// differing keeps the labelled metrics whose cells differ between the two
// runs: where the designs part.
func differing(metrics []scenarios.Metric[*run], a, b *run) []scenarios.Metric[*run] {
	var out []scenarios.Metric[*run]
	for _, f := range metrics {
		if f.Label != "" && cell(f, a) != cell(f, b) {
			out = append(out, f)
		}
	}
	return out
}

func cell(f scenarios.Metric[*run], x *run) string {
	if f.Show != nil {
		return f.Show(x)
	}
	return fmt.Sprint(f.Value(x))
}

// metrics are the family's metrics of one run, declared once: the pair
// table shows those with a label, every report records those with a key in
// --json (for its own run).
func (o *options) metrics() []scenarios.Metric[*run] {
	i := o.FailingOrder - firstOrder
	count := func(label, key string, n func(*run) int) scenarios.Metric[*run] {
		return scenarios.Metric[*run]{Label: label, Key: key, Value: func(x *run) any { return n(x) }}
	}
	return []scenarios.Metric[*run]{
		{Key: "failing_order", Value: func(*run) any { return o.FailingOrder }},
		{Key: "failing_message", Value: func(*run) any { return o.FailingMessage }},
		count("", "records", func(x *run) int { return len(x.log) }),
		count("Records dead-lettered", "", func(x *run) int { return len(x.idle.dead) }),
		count("", "dead_letters", func(x *run) int { return len(x.end.dead) }),
		count("Records parked", "", func(x *run) int { return len(x.idle.parked) }),
		count("", "parked", func(x *run) int { return len(x.end.parked) }),
		count("Handler failures (attempts)", "", failedAttempts),
		count("Rows with no order, when idle", "orphans_at_idle", func(x *run) int { return x.idle.orphans.total() }),
		count("", "orphans_at_end", func(x *run) int { return x.end.orphans.total() }),
		count("Records applied before their dependency", "applied_out_of_order", outOfOrder),
		{Label: "Other orders complete before the fix", Key: "others_complete_before_fix",
			Show: func(x *run) string {
				done, total := o.othersComplete(x)
				return fmt.Sprintf("%d / %d", done, total)
			},
			Value: func(x *run) any {
				done, _ := o.othersComplete(x)
				return done
			}},
		{Key: "others_total", Value: func(x *run) any {
			_, total := o.othersComplete(x)
			return total
		}},
		{Label: "Longest wait of another order's record", Show: func(x *run) string { return o.longestWait(x).String() }},
		{Label: fmt.Sprintf("Order %d at the end", o.FailingOrder), Key: "failing_order_end_state",
			Show:  func(x *run) string { return x.end.states[i].brief() },
			Value: func(x *run) any { return x.end.states[i].String() }},
		{Key: "failing_order_in_order_state", Value: func(x *run) any { return x.inOrder[i].String() }},
		{Label: "Orders equal to the in-order run", Key: "orders_equal_in_order",
			Show: func(x *run) string {
				same, _ := endSame(x)
				return fmt.Sprintf("%d / %d", same, len(x.end.states))
			},
			Value: func(x *run) any {
				same, _ := endSame(x)
				return same
			}},
	}
}

// prefixed renames a metric's key for a run that is not the scenario's own:
// pause_records, classify_dead_letters.
func prefixed(prefix string) func(key string) string {
	return func(key string) string { return prefix + key }
}
