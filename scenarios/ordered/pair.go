package ordered

import (
	"fmt"
	"strconv"

	"outboxlab/core/report"
)

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
