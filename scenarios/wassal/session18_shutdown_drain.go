package wassal

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// finishedInDrain: each handler of worker-a due to return within the drain
// (from its claim, by its flag) was completed by worker-a, attempt 1,
// notified once.
func (o *shutdownOptions) finishedInDrain(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "a handler that returned within the drain was completed by its worker"
	var keys, parts []string
	for _, k := range f.inFlight {
		c, ok := claimOf(run, "worker-a", k)
		if ends := c.at.Add(o.handlerOf(k)); ok && ends.After(run.stop) && !ends.After(run.deadline) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		r.NotExercised(name, "no handler of worker-a was due to return between the stop and the drain deadline: "+
			"a --finish that ends within --drain of the stop makes one")
		return
	}
	for _, k := range keys {
		m, ns := messageOf(run.ledger, k), f.notified[k]
		if m.Status != outbox.Processed || m.AttemptCount != 1 || len(ns) != 1 || ns[0].by != "worker-a" {
			r.Check(name, false, fmt.Sprintf("%s: %s, AttemptCount %d, notified by %s", k, m.Status, m.AttemptCount,
				report.Dash(notifiedText(ns))))
			return
		}
		parts = append(parts, fmt.Sprintf("%s notified by %s, attempt 1", k, notifiedText(ns)))
	}
	r.Check(name, true, strings.Join(parts, "; "))
}

// releasedUncounted judges each release by the row read right before and
// right after it: worker-a's claim, then Pending, no owner, the token kept
// and the AttemptCount one less; and the message ends with as many attempts
// as completions.
func (o *shutdownOptions) releasedUncounted(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "a cancelled handler's message was released without counting an attempt"
	if len(run.releases) == 0 {
		r.NotExercised(name, "no handler that honours a cancel was still running at the drain deadline: nothing "+
			"to release; a --long past --stop-at plus --drain makes one")
		return
	}
	var parts []string
	for _, x := range run.releases {
		b, a := x.before, x.after
		final := messageOf(run.ledger, x.key)
		switch {
		case b.Status != outbox.Processing || b.LockedBy != "worker-a" || a.Status != outbox.Pending || a.LockedBy != "" ||
			a.ClaimToken != b.ClaimToken:
			r.Check(name, false, fmt.Sprintf("%s at %s: %s by %s (token %d) → %s by %s (token %d)", x.key, clock.Stamp(x.at),
				b.Status, report.Dash(b.LockedBy), b.ClaimToken, a.Status, report.Dash(a.LockedBy), a.ClaimToken))
			return
		case a.AttemptCount != b.AttemptCount-1 || final.AttemptCount != len(f.notified[x.key]):
			r.Check(name, false, fmt.Sprintf("%s released at %s: AttemptCount %d → %d; it ends with AttemptCount %d for %s",
				x.key, clock.Stamp(x.at), b.AttemptCount, a.AttemptCount, final.AttemptCount,
				report.Plural(len(f.notified[x.key]), "completion")))
			return
		}
		parts = append(parts, fmt.Sprintf("%s at %s: Processing by worker-a → Pending, no owner, AttemptCount %d → %d; "+
			"it ends with AttemptCount %d, notified by %s", x.key, clock.Stamp(x.at), b.AttemptCount, a.AttemptCount,
			final.AttemptCount, report.Dash(notifiedText(f.notified[x.key]))))
	}
	r.Check(name, true, strings.Join(parts, "; "))
}

// letGoByDeadline: by the drain deadline worker-a held only messages whose
// handler ignored the cancel (read from the rows right after the
// deadline's releases), and it went by the deadline unless such a handler
// kept it until the KILL.
func (o *shutdownOptions) letGoByDeadline(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "by the drain deadline worker-a let go of all but a handler that ignored the cancel"
	if len(f.inFlight) == 0 {
		r.NotExercised(name, nothingInFlight)
		return
	}
	rows := run.atDeadline
	if !run.gone.After(run.deadline) {
		rows = run.atGone // it went first: the rows as it left them
	}
	var hung, kept []string
	for _, k := range heldKeys(rows, "worker-a") {
		c, _ := claimOf(run, "worker-a", k)
		if keyIndex(k) == shutdownHangOf && c.at.Add(o.Hang).After(run.deadline) {
			hung = append(hung, k)
		} else {
			kept = append(kept, k)
		}
	}
	switch {
	case len(kept) > 0:
		r.Check(name, false, fmt.Sprintf("at %s worker-a still held %s, whose handler had returned or honours a cancel",
			clock.Stamp(earliest(run.deadline, run.gone)), keysText(kept)))
	case run.gone.After(run.deadline) && !run.killed && len(hung) == 0:
		r.Check(name, false, fmt.Sprintf("worker-a went at %s, after its deadline %s, holding nothing",
			clock.Stamp(run.gone), clock.Stamp(run.deadline)))
	case len(hung) > 0:
		r.Check(name, true, fmt.Sprintf("at the deadline %s worker-a held only %s, whose handler ignored the cancel; "+
			"it went at %s", clock.Stamp(run.deadline), keysText(hung), clock.Stamp(run.gone)))
	default:
		r.Check(name, true, fmt.Sprintf("worker-a held nothing and exited at %s, by its deadline %s",
			clock.Stamp(run.gone), clock.Stamp(run.deadline)))
	}
}

// survivedKill: each message worker-a still held when the KILL came was
// taken again after its lease ended and within one lease of the kill.
func (o *shutdownOptions) survivedKill(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "killed after the deadline, its message was taken again within one lease"
	if !run.killed || len(f.leftToLease) == 0 {
		r.NotExercised(name, "worker-a was not killed holding a message: every handler returned before the KILL; "+
			"a --hang past it makes one")
		return
	}
	var parts []string
	for _, k := range f.leftToLease {
		m := rowOf(run.atGone, k)
		c, ok := f.retakenAfter(k, run.gone)
		if !ok || !c.At.After(m.LockedUntil) || c.At.After(run.gone.Add(shutdownLease)) {
			r.Check(name, false, fmt.Sprintf("%s: killed with it at %s, lease until %s; %s", k, clock.Stamp(run.gone),
				clock.Stamp(m.LockedUntil), retakeLate(c.At, ok)))
			return
		}
		parts = append(parts, fmt.Sprintf("%s: killed with it at %s, lease until %s; taken again %s (attempt %d), "+
			"notified by %s", k, clock.Stamp(run.gone), clock.Stamp(m.LockedUntil), clock.Stamp(c.At),
			messageOf(run.ledger, k).AttemptCount, report.Dash(notifiedText(f.notified[k]))))
	}
	r.Check(name, true, strings.Join(parts, "; "))
}

// oneCompletionEach is the invariant of both designs: each payment
// Processed and notified exactly once, its ProcessedAtUtc that notification's.
func (o *shutdownOptions) oneCompletionEach(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "each payment completed and notified exactly once"
	for _, k := range PaymentKeys(shutdownPays) {
		if ns := f.notified[k]; !processedAtOne(run.ledger, k, ns) {
			m := messageOf(run.ledger, k)
			r.Invariant(name, false, fmt.Sprintf("%s notified %d times (%s), the row %s", k, len(ns),
				report.Dash(notifiedText(ns)), m.Status))
			return
		}
	}
	r.Invariant(name, true, fmt.Sprintf("%s Processed, one notification each", report.Plural(shutdownPays, "payment")))
}

// retakeLate says when a killed worker's message was taken again, outside
// the window from its lease's end to one lease after the kill.
func retakeLate(at time.Time, ok bool) string {
	if !ok {
		return "never taken again"
	}
	return "taken again " + clock.Stamp(at) + ", not between its lease's end and one lease after the kill"
}
