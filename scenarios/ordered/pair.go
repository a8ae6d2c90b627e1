package ordered

import (
	"context"
	"fmt"
	"strconv"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// side is one scenario of a BEFORE/AFTER pair: its name, its report title
// and the design it runs.
type side struct {
	name, title string
	design      design
}

// reportPair runs the own side of a pair on the scenario's database and the
// other side beside it, then writes the sections every pair report shares:
// header, schema, log, timeline, queues, states and the pair table. extra,
// when not nil, writes the own side's sections between queues and states.
// The caller adds its checks and finishes the report.
func (o *options) reportPair(ctx context.Context, env scenarios.Env, before, after side, ownIsAfter bool,
	extra func(*report.Report, *run)) (*report.Report, *run, error) {
	own, partner, kind := before, after, report.Before
	if ownIsAfter {
		own, partner, kind = after, before, report.After
	}
	run, b, a, err := o.executePair(ctx, env, own.design, partner.design, ownIsAfter)
	if err != nil {
		return nil, nil, err
	}
	r := o.start(identity{name: own.name, pair: partner.name, kind: kind, title: own.title}, run)
	writeSchema(r, run.tables)
	o.writeLog(r, run.log)
	writeTimeline(r, run)
	writeQueues(r, run)
	if extra != nil {
		extra(r, run)
	}
	o.writeStates(r, run)
	o.writePairTable(r, kind, b, a)
	return r, run, nil
}

// writePairTable compares a BEFORE and an AFTER design that ran on the same
// log in one invocation.
func (o *options) writePairTable(r *report.Report, own report.Kind, before, after *run) {
	r.Section("Real BEFORE vs AFTER figures")
	r.Linef("Both designs ran in this invocation on the same log; this scenario's own run is the %s column.", own)
	row := func(name string, f func(*run) string) []string { return []string{name, f(before), f(after)} }
	i := o.FailingOrder - firstOrder
	rows := [][]string{
		row("Records dead-lettered", func(x *run) string { return strconv.Itoa(len(x.idle.dead)) }),
		row("Records parked", func(x *run) string { return strconv.Itoa(len(x.idle.parked)) }),
		row("Handler failures (attempts)", func(x *run) string { return strconv.Itoa(failedAttempts(x)) }),
		row("Rows with no order, when idle", func(x *run) string { return strconv.Itoa(x.idle.orphans.total()) }),
		row("Records applied before their dependency", func(x *run) string { return strconv.Itoa(outOfOrder(x)) }),
		row("Other orders complete before the fix", func(x *run) string {
			done, total := o.othersComplete(x)
			return fmt.Sprintf("%d / %d", done, total)
		}),
		row("Longest wait of another order's record", func(x *run) string { return o.longestWait(x).String() }),
		row(fmt.Sprintf("Order %d at the end", o.FailingOrder), func(x *run) string { return x.end.states[i].String() }),
		row("Orders equal to the in-order run", func(x *run) string {
			same, _ := endSame(x)
			return fmt.Sprintf("%d / %d", same, len(x.end.states))
		}),
	}
	r.Table([]string{"Metric (real run)", "BEFORE", "AFTER"}, rows)
}
