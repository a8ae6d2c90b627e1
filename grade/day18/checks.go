package day18

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
)

// Day 18's own checks (docs/grade-protocol.md section 7.5). Each reads the
// change log and the lab's own ledger: its turns, the handlers it timed, its
// drains and kills, the provider calls it answered.

// Check names, as the report and the wrong workers' proof name them.
const (
	checkInFlight = "never two provider calls in flight for one message (but after a hung handler's cap, a kill or the lab's stall)"
	checkHolder   = "only the current holder renews or settles a message (its owner and token)"
	checkRenewed  = "every lease renewed at least RENEW_MARGIN before it ended while its handler ran, to now + lease"
	checkCap      = "renewals stop at the cap: no lease past the claim + RENEW_CAP; a handler hung past it loses its claim"
	checkDrain    = "a drained worker claims nothing more, releases what it holds (Pending, AttemptCount - 1) and exits by its deadline"
	checkAttempts = "attempts counted at claim time: +1 at every claim, -1 only at a drain's release"
	checkDied     = "a message whose worker died is taken again within one lease after its lease ended"
	checkPolling  = "no busy polling: an idle worker looks again only after something changed, or POLL_MS later"
)

// Judge adds the checks of docs/grade-protocol.md section 7.5.
func (v variation) Judge(j *judge.Judge) {
	all := claims(j)
	j.HealthyProcessed(v.healthy(), v.Declined)
	v.inFlight(j, all)
	holderOnly(j, all)
	v.renewedInTime(j, all)
	v.capped(j, all)
	drained(j, all)
	attempts(j)
	diedTakenOver(j, all)
	v.noBusyPolling(j)
	j.LateRefused(v.StallKey)
	j.LeaseTaken(v.Batch)
	j.ColumnsWritten()
	j.ProviderIDs()
	j.NoCharges()
}

// inFlight: a provider call for a message while another incarnation's
// handler of it still runs is a second call in flight, unless that claim
// had reached its cap (the hung handler lost it honestly), its holder was
// killed, or the lab held its answer past its lease.
func (v variation) inFlight(j *judge.Judge, all []*claim) {
	var problems []string
	calls := 0
	for _, key := range v.keys() {
		asked := j.Run.StatusBy[key]
		calls += len(asked)
		for i, first := range asked {
			cl := claimOf(all, first.Worker, first.Inc, first.MessageID, first.At)
			if cl == nil || (key == v.StallKey && cl.n == 1 && first.Worker == j.Run.Stalled) {
				continue
			}
			until := busyUntil(j.Run, cl)
			for _, later := range asked[i+1:] {
				if later.Worker == first.Worker && later.Inc == first.Inc || !later.At.Before(until) {
					continue
				}
				if lease := lastLease(cl); lease == clock.ISO(cl.at.Add(v.Cap)) && clock.ISO(later.At) > lease {
					continue // the hung handler's claim reached its cap and ended
				}
				problems = append(problems, fmt.Sprintf("%s asked the provider about %s at %s while %s's handler of it "+
					"(claimed %s, lease to %s) still ran to %s", later.Worker, key, clock.Stamp(later.At), first.Worker,
					clock.Stamp(cl.at), lastLease(cl), clock.Stamp(until)))
			}
		}
	}
	j.AddExercised(checkInFlight, calls > 0, "no provider call was made", problems,
		fmt.Sprintf("%s, none while another handler of its message ran", report.Plural(calls, "status check")))
}

// claimOf is the claim of message id by the incarnation that asked at t.
func claimOf(all []*claim, worker string, n int, id int64, t time.Time) *claim {
	var found *claim
	for _, cl := range all {
		if cl.id == id && cl.worker == worker && cl.inc == n && !cl.at.After(t) {
			found = cl
		}
	}
	return found
}

// lastLease is the lease cl ended with: its last renewal's, or the claim's.
func lastLease(cl *claim) string {
	if len(cl.renewals) == 0 {
		return cl.lease
	}
	v, _ := cl.renewals[len(cl.renewals)-1].NewValue("LockedUntilUtc")
	return v
}

// holderOnly: every change of a Processing message that is not a claim is
// made by the incarnation that holds its latest claim, under its token; a
// payment changes only in the turn its holder settles its message.
func holderOnly(j *judge.Judge, all []*claim) {
	var problems []string
	changes := 0
	latest := map[int64]*claim{}
	settled := map[string]bool{} // turn/key: the holder settled the message in that turn
	var payments []changelog.Change
	for _, c := range j.Run.Changes {
		if c.Op != "UPDATE" || c.Turn < 0 || j.Run.Turns[c.Turn].Worker == sched.LabID {
			continue
		}
		t := j.Run.Turns[c.Turn]
		if c.Table == "Payments" {
			payments = append(payments, c)
			continue
		}
		if c.Table != "OutboxMessages" {
			continue
		}
		if sched.IsClaim(c) {
			latest[c.RowID] = claimOf(all, t.Worker, t.Inc, c.RowID, t.At)
			continue
		}
		changes++
		cl := latest[c.RowID]
		old, _ := c.OldValue("Status")
		switch {
		case old != "Processing":
			problems = append(problems, fmt.Sprintf("%s changed message %d at %s, which was %s (%s)",
				t.Worker, c.RowID, clock.Stamp(t.At), old, changelog.Describe(c)))
		case cl == nil:
			problems = append(problems, fmt.Sprintf("%s changed message %d at %s, which nobody had claimed",
				t.Worker, c.RowID, clock.Stamp(t.At)))
		case cl.worker != t.Worker || cl.inc != t.Inc:
			problems = append(problems, fmt.Sprintf("%s (incarnation %d) changed message %d at %s while %s "+
				"(incarnation %d) held it: %s", t.Worker, t.Inc, c.RowID, clock.Stamp(t.At), cl.worker, cl.inc,
				changelog.Describe(c)))
		case c.Old["claimtoken"] != cl.token || c.Old["lockedby"] != cl.worker:
			problems = append(problems, fmt.Sprintf("%s changed message %d at %s under token %s, not its claim's %s",
				t.Worker, c.RowID, clock.Stamp(t.At), c.Old["claimtoken"], cl.token))
		default:
			if s, _ := c.NewValue("Status"); s == "Processed" {
				k, _ := c.NewValue("MessageKey")
				settled[fmt.Sprintf("%d/%s", c.Turn, k)] = true
			}
		}
	}
	for _, c := range payments {
		changes++
		k, _ := c.NewValue("PaymentKey")
		if !settled[fmt.Sprintf("%d/%s", c.Turn, k)] {
			t := j.Run.Turns[c.Turn]
			problems = append(problems, fmt.Sprintf("%s changed payment %s at %s in a turn where it settled no "+
				"message of it that it held", t.Worker, k, clock.Stamp(t.At)))
		}
	}
	j.AddExercised(checkHolder, changes > 0, "no message was renewed or settled", problems,
		fmt.Sprintf("%s, each by its holder", report.Plural(changes, "change")))
}
