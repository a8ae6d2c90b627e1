package wassal

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
)

func (o *shutdownOptions) checks(r *report.Report, own *shutdownRun, f shutdownMetrics) {
	if !o.after {
		o.stranded(r, own, f)
		o.countedUnfinished(r, own, f)
	} else {
		o.claimedNothing(r, own, f)
		o.finishedInDrain(r, own, f)
		o.releasedUncounted(r, own, f)
		o.letGoByDeadline(r, own, f)
		o.survivedKill(r, own, f)
	}
	o.oneCompletionEach(r, own, f)
	f.txIDs.invariant(r)
}

// nothingInFlight says why the stop found no work to strand or drain.
const nothingInFlight = "worker-a held no message when the stop came: a --stop-at after its first claim, " +
	"and handlers that run past it, put work in flight"

// stranded is the BEFORE's demonstration: the messages worker-a held when
// it went stayed Processing under its lease, and were taken again only
// when the lease ended, the moment the claim allowed.
func (o *shutdownOptions) stranded(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "the stop stranded the work in flight until its lease ended"
	if len(f.leftToLease) == 0 {
		r.NotExercised(name, nothingInFlight)
		return
	}
	var first time.Time
	var leaseEnd time.Time
	for _, k := range f.leftToLease {
		m := rowOf(run.atGone, k)
		c, ok := f.retakenAfter(k, run.gone)
		if !ok || !c.At.After(m.LockedUntil) {
			r.Check(name, false, fmt.Sprintf("%s, held by worker-a when it went at %s (lease until %s), was %s",
				k, clock.Stamp(run.gone), clock.Stamp(m.LockedUntil), retakeText(c, ok)))
			return
		}
		if first.IsZero() || c.At.Before(first) {
			first = c.At
		}
		if leaseEnd.IsZero() || m.LockedUntil.Before(leaseEnd) {
			leaseEnd = m.LockedUntil
		}
	}
	detail := fmt.Sprintf("%s Processing under worker-a when it went at %s; the first taken again %s, "+
		"as its lease (until %s) let it", keysText(f.leftToLease), clock.Stamp(run.gone), clock.Stamp(first), clock.Stamp(leaseEnd))
	if !first.Equal(leaseEnd.Add(claim.WakeupSlack)) {
		detail = fmt.Sprintf("%s held by worker-a when it went at %s, leases until %s; the first taken again only %s, "+
			"when worker-b started: the restart kept them waiting, not the lease", keysText(f.leftToLease),
			clock.Stamp(run.gone), clock.Stamp(leaseEnd), clock.Stamp(first))
	}
	r.Check(name, first.Equal(leaseEnd.Add(claim.WakeupSlack)), detail)
}

// retakeText says when a stranded message was taken again, too soon.
func retakeText(c provider.Call, ok bool) string {
	if !ok {
		return "never taken again"
	}
	return "taken again " + clock.Stamp(c.At) + ", before its lease ended"
}

// countedUnfinished: each message stranded by the stop ends with an
// AttemptCount above its completions, an attempt counted that never finished.
func (o *shutdownOptions) countedUnfinished(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "each stranded message counted an attempt it never finished"
	if len(f.leftToLease) == 0 {
		r.NotExercised(name, nothingInFlight)
		return
	}
	var parts []string
	for _, k := range f.leftToLease {
		m := messageOf(run.ledger, k)
		if m.AttemptCount <= len(f.notified[k]) {
			r.Check(name, false, fmt.Sprintf("%s ends with AttemptCount %d for %s", k, m.AttemptCount,
				report.Plural(len(f.notified[k]), "completion")))
			return
		}
		parts = append(parts, fmt.Sprintf("%s AttemptCount %d", k, m.AttemptCount))
	}
	r.Check(name, true, strings.Join(parts, ", ")+", each for one completion")
}

// claimedNothing: from the stop until worker-a was gone the provider was
// asked nothing, though a handler of worker-a returned with a message
// waiting: a worker that claims asks at once.
func (o *shutdownOptions) claimedNothing(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	const name = "after the stop worker-a claimed nothing"
	waiting := pendingAt(run.atStop)
	if len(f.drained) == 0 || len(waiting) == 0 {
		r.NotExercised(name, "no handler of worker-a returned in the drain while a message waited Pending: "+
			"it had no free slot to claim into; a --finish shorter than --stop-at plus --drain gives it one")
		return
	}
	for _, cs := range f.calls {
		for _, c := range cs {
			if c.At.After(run.stop) && c.At.Before(run.gone) {
				r.Check(name, false, fmt.Sprintf("%s was claimed and checked at %s, after the stop at %s, before worker-a went at %s",
					c.Key, clock.Stamp(c.At), clock.Stamp(run.stop), clock.Stamp(run.gone)))
				return
			}
		}
	}
	r.Check(name, true, fmt.Sprintf("%s waited Pending while worker-a finished %s in the drain; no status check from "+
		"the stop at %s until worker-a went at %s", keysText(waiting), keysText(f.drained), clock.Stamp(run.stop), clock.Stamp(run.gone)))
}

// pendingAt are the keys Pending in rows.
func pendingAt(rows []outbox.Message) []string {
	var keys []string
	for _, m := range rows {
		if m.Status == outbox.Pending {
			keys = append(keys, m.Key)
		}
	}
	return keys
}

// claimOf is worker's first claim of key.
func claimOf(run *shutdownRun, worker, key string) (claim18, bool) {
	for _, c := range run.claims {
		if c.worker == worker && c.key == key {
			return c, true
		}
	}
	return claim18{}, false
}
