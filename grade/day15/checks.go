package day15

import (
	"fmt"

	"outboxlab/core/report"
	"outboxlab/grade/judge"
	"outboxlab/scenarios/wassal"
)

// Day 15's own checks: one payment update, the kill's takeover, the stall's
// late completion refused.

// Judge adds the checks of docs/grade-protocol.md section 7.2.
func (v variation) Judge(j *judge.Judge) {
	j.HealthyProcessed(wassal.PaymentKeys(v.Payments), v.Declined)
	onePaymentUpdate(j)
	j.KilledTakenOver(v.KillKey)
	j.LateRefused(v.StallKey)
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
