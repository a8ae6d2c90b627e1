package ordered

import (
	"fmt"
	"slices"

	"outboxlab/core/ordered"
	"outboxlab/core/report"
)

// checkFailingDeadLettered: the bug's record used its attempts and was set aside.
func (o *options) checkFailingDeadLettered(r *report.Report, run *run) {
	rec := o.failingRecord(run)
	attempts := 0
	for _, d := range run.idle.dead {
		if d.Record.ID == rec.ID {
			attempts = d.Attempts
		}
	}
	r.Check(fmt.Sprintf("%s dead-lettered after MaxAttempts", o.FailingMessage), attempts == o.MaxAttempts,
		fmt.Sprintf("%s after %d / %d attempts", rec.MessageID, attempts, o.MaxAttempts))
}

// checkOthersFlowed: every other order reached its in-order state before any fix.
func (o *options) checkOthersFlowed(r *report.Report, run *run) {
	done, total := o.othersComplete(run)
	r.Check("other keys kept flowing", done == total,
		fmt.Sprintf("%d / %d other orders complete before the fix", done, total))
}

// checkEndSame: an AFTER run ends where the in-order run does, for every order.
func (o *options) checkEndSame(r *report.Report, run *run) {
	same, differ := endSame(run)
	detail := fmt.Sprintf("%d / %d orders", same, len(run.end.states))
	if len(differ) > 0 {
		detail += "; differs: order " + report.JoinInts(differ)
	}
	r.Check("end state = in-order end state", len(differ) == 0, detail)
}

// checkEndDiffers: a BEFORE run leaves the failing order where an in-order run never would.
func (o *options) checkEndDiffers(r *report.Report, run *run, name string) {
	i := o.FailingOrder - firstOrder
	got, want := run.end.states[i], run.inOrder[i]
	same, _ := endSame(run)
	r.Check(name, got != want,
		fmt.Sprintf("order %d: %s vs in-order %s (%d / %d orders equal)", o.FailingOrder, got, want, same, len(run.end.states)))
}

// recordCommon records the figures every report of the family has in --json.
func (o *options) recordCommon(r *report.Report, run *run) {
	done, total := o.othersComplete(run)
	same, _ := endSame(run)
	i := o.FailingOrder - firstOrder
	r.Metric("failing_order", o.FailingOrder)
	r.Metric("failing_message", o.FailingMessage)
	r.Metric("records", len(run.log))
	r.Metric("dead_letters", len(run.end.dead))
	r.Metric("parked", len(run.end.parked))
	r.Metric("applied_out_of_order", outOfOrder(run))
	r.Metric("others_complete_before_fix", done)
	r.Metric("others_total", total)
	r.Metric("orphans_at_idle", run.idle.orphans.total())
	r.Metric("orphans_at_end", run.end.orphans.total())
	r.Metric("orders_equal_in_order", same)
	r.Metric("failing_order_end_state", run.end.states[i].String())
	r.Metric("failing_order_in_order_state", run.inOrder[i].String())
}

func (o *options) finish(r *report.Report, run *run, pass, fail string) *report.Report {
	r.Checks("Safety checks")
	r.Verdict(pass, fail)
	o.recordCommon(r, run)
	return r
}

// checkReplayInSequence: replay pass i applied the failing record and every
// later one, in sequence order, and released the holds.
func (o *options) checkReplayInSequence(r *report.Report, run *run, i int) {
	var seqs []int
	failed := true
	if i < len(run.replays) {
		failed = run.replays[i].Failed
		for _, ev := range run.replays[i].Events {
			if ev.Kind == ordered.Applied {
				seqs = append(seqs, ev.Record.Sequence)
			}
		}
	}
	want := make([]int, 0, 3)
	for seq := o.failingSeq(); seq <= 3; seq++ {
		want = append(want, seq)
	}
	r.Check("replay applied in sequence order", !failed && slices.Equal(seqs, want),
		fmt.Sprintf("sequences [%s] applied, want [%s]", report.JoinInts(seqs), report.JoinInts(want)))
}
