package grade

import (
	"fmt"
	"math/rand/v2"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/scenarios/wassal"
)

// Day 15 (docs/grade-protocol.md section 7.2): two or three workers, one
// owner at a time. The lab kills a worker while its provider call is in
// flight (the provider answered; the worker never recorded it), and holds
// another worker's answer past its lease so that someone else takes the
// message over: the stalled worker's late completion must be refused.

// stallPast is how far past the lease a held answer is given: later than a
// sleeper's lease end + 1 ms, so another worker takes the message over first.
const stallPast = 500 * time.Millisecond

func init() {
	days = append(days, &Day{
		ID: "session-15", Aliases: []string{"day15"}, EnvDay: "15", Number: 15,
		Title:   "Day 15, leasing: one owner at a time",
		Summary: "two or three workers; a kill in flight, a stall past the lease, a late completion refused",
		defaults: variation{
			Payments: 6, Declined: "PAY-005", KillKey: "PAY-002", StallKey: "PAY-004", MaxAttempts: 5,
			BaseBackoff: 200 * time.Millisecond, Lease: claim.DefaultLease, Batch: 2, Workers: 2,
		},
		vary:     varyDay15,
		fault:    day15Fault,
		restarts: func(variation) int { return 1 },
		judge:    judgeDay15,
		describe: describeDay15,
	})
}

func varyDay15(rng *rand.Rand, label string) variation {
	v := variation{Label: label, MaxAttempts: 5, BaseBackoff: 200 * time.Millisecond}
	v.Workers = 2 + rng.IntN(2)
	v.Payments = 4 + rng.IntN(6)
	keys := rng.Perm(v.Payments)
	v.KillKey = wassal.PaymentKey(keys[0] + 1)
	v.StallKey = wassal.PaymentKey(keys[1] + 1)
	v.Declined = wassal.PaymentKey(keys[2] + 1)
	v.Batch = 1 + rng.IntN(3)
	v.Lease = []time.Duration{5, 10, 30, 60}[rng.IntN(4)] * time.Second
	return v
}

func day15Fault(r *run, s *slot, key string, _ int64) faultAction {
	switch {
	case key == r.v.KillKey && !r.fired["kill"]:
		r.fired["kill"] = true
		return faultAction{kill: true, answered: true, why: "killed with " + key + "'s answer in flight"}
	case key == r.v.StallKey && !r.fired["stall"]:
		r.fired["stall"] = true
		return faultAction{stall: r.v.Lease + stallPast}
	}
	return faultAction{}
}

func describeDay15(v variation) []string {
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each", v.Payments, wassal.PaymentKey(v.Payments)),
		fmt.Sprintf("Faults    killed in flight at %s's status check (answered, never delivered); "+
			"%s's answer held for lease + %s", v.KillKey, v.StallKey, clock.Millis(stallPast)),
		fmt.Sprintf("Provider  declines %s, pays the rest", v.Declined),
		fmt.Sprintf("Policy    %s · lease %s · batch %d · MaxAttempts %d", count(v.Workers, "worker"),
			clock.Millis(v.Lease), v.Batch, v.MaxAttempts),
	}
}

func judgeDay15(j *judge) {
	j.healthyProcessed()
	j.onePaymentUpdate()
	j.killedTakenOver()
	j.lateRefused()
	// Not the ledger: the killed worker's batch-mates were delivered (counted)
	// but never asked about.
	j.countedAtClaim(false)
	j.leaseTaken()
	j.drained()
	j.noRowLost()
	j.providerIDs()
	j.noCharges()
}

// onePaymentUpdate: every payment's status changed exactly once.
func (j *judge) onePaymentUpdate() {
	updates := map[int64]int{}
	for _, c := range j.g.r.changes {
		if c.Table == "Payments" && c.Op == "UPDATE" {
			updates[c.RowID]++
		}
	}
	var problems []string
	for _, p := range j.g.pays {
		if n := updates[int64(atoi(p.get("Id")))]; n != 1 {
			problems = append(problems, fmt.Sprintf("payment %s updated %s", p.get("PaymentKey"), count(n, "time")))
		}
	}
	j.addExercised("one payment update per message", len(j.g.pays) > 0, "no payment", problems,
		count(len(j.g.pays), "payment")+", each updated once")
}

// claimsOf lists the claims of the message with key, in order.
func (j *judge) claimsOf(key string) []change {
	var out []change
	for _, c := range j.messageChanges() {
		if k, _ := c.value("MessageKey"); k == key && isClaim(c) {
			out = append(out, c)
		}
	}
	return out
}

// killedTakenOver: the message whose answer died with its worker was claimed
// again only after its lease, and then Processed.
func (j *judge) killedTakenOver() {
	v := j.g.v
	var problems []string
	claims := j.claimsOf(v.KillKey)
	if m := j.message(v.KillKey); m != nil && m.get("Status") != "Processed" {
		problems = append(problems, fmt.Sprintf("%s is %s", v.KillKey, m.get("Status")))
	}
	if len(claims) >= 2 {
		first, _ := claims[0].value("LockedUntilUtc")
		at, _ := j.turnAt(claims[1])
		if clock.ISO(at) <= first {
			problems = append(problems, fmt.Sprintf("%s taken over at %s, inside the killed claim's lease (to %s)",
				v.KillKey, clock.Stamp(at), first))
		}
	}
	j.addExercised("the killed worker's message taken over after its lease, then Processed",
		j.g.r.fired["kill"] && len(claims) >= 2, "the kill did not happen or nobody claimed the message again",
		problems, fmt.Sprintf("%s: claimed %s", v.KillKey, count(len(claims), "time")))
}

// lateRefused: once the stalled worker got its held answer, it changed
// neither the message nor its payment; the row keeps the new owner's token.
func (j *judge) lateRefused() {
	v, r := j.g.v, j.g.r
	var problems []string
	claims := j.claimsOf(v.StallKey)
	exercised := r.stalled != nil && r.lateTurn >= 0 && len(claims) >= 2
	if exercised {
		last := claims[len(claims)-1]
		owner, _ := last.value("LockedBy")
		if owner == r.stalled.id && last.Turn < r.lateTurn {
			problems = append(problems, v.StallKey+" was never taken over from the stalled worker")
		}
		for _, c := range r.changes {
			if c.Turn < r.lateTurn || j.turnWorker(c) != r.stalled.id {
				continue
			}
			key := c.New["messagekey"] + c.New["paymentkey"]
			if key == v.StallKey {
				problems = append(problems, fmt.Sprintf("the stalled %s's late write to %s %d was accepted (%s)",
					r.stalled.id, c.Table, c.RowID, describeChange(c)))
			}
		}
		if m := j.message(v.StallKey); m != nil && m.get("ClaimToken") != last.New["claimtoken"] {
			problems = append(problems, fmt.Sprintf("%s ClaimToken %s, want the new owner's %s", v.StallKey,
				m.get("ClaimToken"), last.New["claimtoken"]))
		}
	}
	j.addExercised("the stalled worker's late completion refused by the owner and token check", exercised,
		"no stall, no takeover or no late answer", problems,
		fmt.Sprintf("%s: taken over, the late record changed nothing", v.StallKey))
}
