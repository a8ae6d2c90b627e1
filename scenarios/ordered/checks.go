package ordered

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// checkFailingDeadLettered: the bug's record used its attempts and was set
// aside. It reads the handler's ledger (how often the bug failed the record
// before the fix) and the record's DeadLetters row.
func (o *options) checkFailingDeadLettered(r *page, run *run) {
	rec := o.failingRecord(run)
	row, dead := deadLetterOf(run.idle, rec.ID)
	failed := failedCalls(run, rec.ID, beforeFix)
	detail := fmt.Sprintf("%s after %d / %d attempts", rec.MessageID, failed, o.MaxAttempts)
	switch {
	case !dead:
		detail += "; not in DeadLetters"
	case row.Attempts != failed:
		detail += fmt.Sprintf("; its DeadLetters row says %d", row.Attempts)
	}
	r.Check(fmt.Sprintf("%s dead-lettered after MaxAttempts", o.FailingMessage), dead && failed == o.MaxAttempts && row.Attempts == failed, detail)
}

// checkOthersFlowed: every other order reached its in-order state before any fix.
func (o *options) checkOthersFlowed(r *page, run *run) {
	done, total := o.othersComplete(run)
	r.Check("other keys kept flowing", total > 0 && done == total,
		fmt.Sprintf("%d / %d other orders complete before the fix", done, total))
}

// checkEndSame: an AFTER run ends where the in-order run does, for every order.
func (o *options) checkEndSame(r *page, run *run) {
	same, differ := endSame(run)
	detail := fmt.Sprintf("%d / %d orders", same, len(run.end.states))
	if len(differ) > 0 {
		detail += "; differs: order " + report.JoinInts(differ)
	}
	r.Check("end state = in-order end state", len(differ) == 0, detail)
}

// checkEndDiffers: a BEFORE run leaves the failing order where an in-order run never would.
func (o *options) checkEndDiffers(r *page, run *run, name string) {
	i := o.FailingOrder - firstOrder
	got, want := run.end.states[i], run.inOrder[i]
	same, _ := endSame(run)
	r.Check(name, got != want,
		fmt.Sprintf("order %d: %s vs in-order %s (%d / %d orders equal)", o.FailingOrder, got.brief(), want.brief(), same, len(run.end.states)))
}

func (o *options) finish(r *page, run *run, pass, fail string) *report.Report {
	r.Checks("Safety checks")
	r.Verdict(pass, fail)
	scenarios.RecordMetrics(r.Report, o.metrics(), run)
	r.Figure(o.picture("timeline", "Consumer events by partition, until the consumer went idle", run))
	return r.Report
}

// checkReplayInSequence: replay pass i handed the failing record and every
// later one to the handler, in sequence order, and none failed. It reads the
// handler's ledger, not what the replay tool returned.
func (o *options) checkReplayInSequence(r *page, run *run, i int) {
	var seqs []int
	failed := 0
	for _, c := range run.calls {
		if c.stage != replayPass+stage(i) || c.rec.Key != orderKey(o.FailingOrder) {
			continue
		}
		if c.err != nil {
			failed++
			continue
		}
		seqs = append(seqs, c.rec.Sequence)
	}
	want := make([]int, 0, 3)
	for seq := o.failingSeq(); seq <= 3; seq++ {
		want = append(want, seq)
	}
	detail := fmt.Sprintf("sequences [%s] applied, want [%s]", report.JoinInts(seqs), report.JoinInts(want))
	ran := i < len(run.replays)
	switch {
	case !ran:
		detail += "; no replay ran"
	case failed > 0:
		detail += fmt.Sprintf("; %s failed again, the replay stopped", report.Plural(failed, "record"))
	}
	r.Check("replay applied in sequence order", ran && failed == 0 && slices.Equal(seqs, want), detail)
}

// laterRows are the rows of a queue (a snapshot's dead letters or parked
// records) that hold a record of the failing order after the failing one.
func (o *options) laterRows(rows []keyedlog.SetAside) []keyedlog.SetAside {
	var out []keyedlog.SetAside
	for _, a := range rows {
		if a.Record.Key == orderKey(o.FailingOrder) && a.Record.Sequence > o.failingSeq() {
			out = append(out, a)
		}
	}
	return out
}

// lastMessageNote explains a failing message that is the order's last: no
// later message exists for the failure to damage or for a remedy to hold.
func (o *options) lastMessageNote() string {
	if o.later() > 0 {
		return ""
	}
	return fmt.Sprintf("; %s is order %d's last message, nothing comes after it", o.FailingMessage, o.FailingOrder)
}

// checkReleasedAfterReplay: the failing order's correlation id was released
// by the replay after the fix, and only once the handler had applied every
// record of it that was set aside (the rule for removing ids). It reads the
// Holds row, the DeadLetters and ParkedMessages rows and the handler's ledger.
func (o *options) checkReleasedAfterReplay(r *page, run *run, name string) {
	key := orderKey(o.FailingOrder)
	var hold keyedlog.Hold
	for _, h := range run.holds {
		if h.Scope == keyedlog.ScopeCorrelation && h.Value == key {
			hold = h
		}
	}
	var missing []string
	total := 0
	for _, a := range slices.Concat(run.end.dead, run.end.parked) {
		if a.Record.CorrelationID != key {
			continue
		}
		total++
		replayed := slices.ContainsFunc(run.calls, func(c call) bool {
			return c.stage >= replayPass && c.err == nil && c.rec.MessageID == a.Record.MessageID
		})
		if !replayed {
			missing = append(missing, fmt.Sprintf("%d#%d", o.FailingOrder, a.Record.Sequence))
		}
	}
	detail := fmt.Sprintf("%s released at %s", key, stamp(hold.ReleasedAt))
	switch {
	case hold.ID == 0:
		detail += "; it was never held"
	case len(missing) > 0:
		detail += fmt.Sprintf("; %d of its %d set-aside records not replayed (%s)", len(missing), total, strings.Join(missing, ", "))
	}
	r.Check(name, hold.ID > 0 && hold.ReleasedAt.Equal(run.fixAt) && len(missing) == 0, detail)
}
