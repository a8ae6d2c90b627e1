package day15

import (
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
	"outboxlab/scenarios/wassal"
)

// Day 15's own checks: one payment update, the kill's takeover, the stall's
// late completion refused.

// Judge adds the checks of docs/grade-protocol.md section 7.2.
func (v variation) Judge(j *judge.Judge) {
	j.HealthyProcessed(wassal.PaymentKeys(v.Payments), v.Declined)
	onePaymentUpdate(j)
	v.killedTakenOver(j)
	v.lateRefused(j)
	// Not the ledger: the killed worker's batch-mates were delivered (counted)
	// but never asked about.
	j.CountedAtClaim(false, "")
	j.LeaseTaken(v.Batch)
	j.ClaimOrder()
	j.ColumnsWritten()
	j.Drained()
	j.NoRowLost(v.Payments)
	j.ProviderIDs()
	j.NoCharges()
}

// onePaymentUpdate: every payment's status changed exactly once.
func onePaymentUpdate(j *judge.Judge) {
	updates := map[int64]int{}
	for _, c := range j.Run.Changes {
		if c.Table == "Payments" && c.Op == "UPDATE" {
			updates[c.RowID]++
		}
	}
	var problems []string
	for _, p := range j.Payments {
		if n := updates[int64(p.Int("Id"))]; n != 1 {
			problems = append(problems, fmt.Sprintf("payment %s updated %s", p.Get("PaymentKey"), report.Plural(n, "time")))
		}
	}
	j.AddExercised("one payment update per message", len(j.Payments) > 0, "no payment", problems,
		report.Plural(len(j.Payments), "payment")+", each updated once")
}

// claimsOf lists the claims of the message with key, in order.
func claimsOf(j *judge.Judge, key string) []changelog.Change {
	var out []changelog.Change
	for _, c := range j.MessageChanges() {
		if k, _ := c.NewValue("MessageKey"); k == key && sched.IsClaim(c) {
			out = append(out, c)
		}
	}
	return out
}

// killedTakenOver: the message whose answer died with its worker was claimed
// again only after its lease, and then Processed.
func (v variation) killedTakenOver(j *judge.Judge) {
	var problems []string
	claims := claimsOf(j, v.KillKey)
	if m := j.Message(v.KillKey); m != nil && m.Get("Status") != "Processed" {
		problems = append(problems, fmt.Sprintf("%s is %s", v.KillKey, m.Get("Status")))
	}
	if len(claims) >= 2 {
		first, _ := claims[0].NewValue("LockedUntilUtc")
		at, _ := j.TurnAt(claims[1])
		if clock.ISO(at) <= first {
			problems = append(problems, fmt.Sprintf("%s taken over at %s, inside the killed claim's lease (to %s)",
				v.KillKey, clock.Stamp(at), first))
		}
	}
	j.AddExercised("the killed worker's message taken over after its lease, then Processed",
		j.Run.Fired["kill"] && len(claims) >= 2, "the kill did not happen or nobody claimed the message again",
		problems, fmt.Sprintf("%s: claimed %s", v.KillKey, report.Plural(len(claims), "time")))
}

// lateRefused: once the stalled worker got its held answer, it changed
// neither the message nor its payment; the row keeps the new owner's token.
func (v variation) lateRefused(j *judge.Judge) {
	r := j.Run
	var problems []string
	claims := claimsOf(j, v.StallKey)
	exercised := r.Stalled != "" && r.LateTurn >= 0 && len(claims) >= 2
	if exercised {
		last := claims[len(claims)-1]
		owner, _ := last.NewValue("LockedBy")
		if owner == r.Stalled && last.Turn < r.LateTurn {
			problems = append(problems, v.StallKey+" was never taken over from the stalled worker")
		}
		for _, c := range r.Changes {
			if c.Turn < r.LateTurn || j.TurnWorker(c) != r.Stalled {
				continue
			}
			key := c.New["messagekey"] + c.New["paymentkey"]
			if key == v.StallKey {
				problems = append(problems, fmt.Sprintf("the stalled %s's late write to %s %d was accepted (%s)",
					r.Stalled, c.Table, c.RowID, changelog.Describe(c)))
			}
		}
		if m := j.Message(v.StallKey); m != nil && m.Get("ClaimToken") != last.New["claimtoken"] {
			problems = append(problems, fmt.Sprintf("%s ClaimToken %s, want the new owner's %s", v.StallKey,
				m.Get("ClaimToken"), last.New["claimtoken"]))
		}
	}
	j.AddExercised("the stalled worker's late completion refused by the owner and token check", exercised,
		"no stall, no takeover or no late answer", problems,
		fmt.Sprintf("%s: taken over, the late record changed nothing", v.StallKey))
}
