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
	// Both designs contain the bug's record after its attempts: an invariant.
	r.Invariant(fmt.Sprintf("%s dead-lettered after MaxAttempts", o.FailingMessage), dead && failed == o.MaxAttempts && row.Attempts == failed, detail)
}

// checkOthersFlowed: every other order reached its in-order state before
// any fix, in both designs (an invariant). The detail names the orders the
// log line shows (the orders, the failing one), never a count it does not;
// a design that deploys no fix (noFix) is not said to have one.
func (o *options) checkOthersFlowed(r *page, run *run) {
	late := o.othersLate(run)
	when := " before the fix"
	if run.design.recovery == noFix {
		when = " by the end of the run"
	}
	detail := fmt.Sprintf("every order but %d complete%s (%d orders)", o.FailingOrder, when, o.Orders)
	if len(late) > 0 {
		detail = "not complete" + when + ": order " + report.JoinInts(late)
	}
	r.Invariant("other keys kept flowing", len(late) == 0, detail)
}

// checkEndSame: an AFTER run ends where the in-order run does, for every order.
func (o *options) checkEndSame(r *page, run *run) {
	_, differ := endSame(run)
	detail := fmt.Sprintf("all %d orders equal the in-order run", len(run.end.states))
	if len(differ) > 0 {
		detail = fmt.Sprintf("differs from the in-order run: order %s (of %d)", report.JoinInts(differ), len(run.end.states))
	}
	r.Check("end state = in-order end state", len(differ) == 0, detail)
}

// checkEndDiffers: a BEFORE run leaves the failing order where an in-order run never would.
func (o *options) checkEndDiffers(r *page, run *run, name string) {
	i := o.FailingOrder - firstOrder
	got, want := run.end.states[i], run.inOrder[i]
	r.Check(name, got != want, fmt.Sprintf("order %d: %s vs in-order %s", o.FailingOrder, got.brief(), want.brief()))
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

// checkLaterParked: the failing order's later records were parked while it
// was set aside, as the design's guard should; not exercised when the
// failing message is the order's last, with nothing after it to park.
func (o *options) checkLaterParked(r *page, run *run, name string) {
	if o.later() == 0 {
		r.NotExercised(name, o.noLater("no later message came to be parked"))
		return
	}
	parked := len(o.laterRows(run.idle.parked))
	r.Check(name, parked == o.later(), fmt.Sprintf("%d / %d parked", parked, o.later()))
}

// noLater is why a check about the failing order's later messages judged
// nothing: the failing message is the order's last, so no later message
// exists for the failure to damage or for a remedy to hold; what says what
// did not happen. It names the flag values that give it later messages.
func (o *options) noLater(what string) string {
	s := stream(o.cancelled)
	return fmt.Sprintf("%s is order %d's last message: %s; give --failing-message %s",
		o.FailingMessage, o.FailingOrder, what, strings.Join(s[:len(s)-1], " or "))
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
