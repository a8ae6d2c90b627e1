// Package day15 is Day 15 as grade judges it (docs/grade-protocol.md
// section 7.2): two or three workers, one owner at a time. The lab kills a
// worker while its provider call is in flight (the provider answered; the
// worker never recorded it), and holds another worker's answer past its
// lease so that someone else takes the message over: the stalled worker's
// late completion must be refused.
package day15

import (
	"fmt"
	"math/rand/v2"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/sched"
	"outboxlab/scenarios/wassal"
)

// stallPast is how far past the lease a held answer is given: later than a
// sleeper's lease end + 1 ms, so another worker takes the message over first.
const stallPast = 500 * time.Millisecond

// Day is Day 15.
var Day = &dayspec.Day{
	ID: "session-15", Aliases: []string{"day15"}, EnvDay: "15", Number: 15, Starter: "day15",
	Title:   "Day 15, leasing: one owner at a time",
	Summary: "two or three workers; a kill in flight, a stall past the lease, a late completion refused",
	Design:  16, Role: "worker",
	Defaults: variation{
		Policy: dayspec.Policy{Payments: 6, Declined: "PAY-005", MaxAttempts: 5, BaseBackoff: 200 * time.Millisecond,
			Lease: claim.DefaultLease, Batch: 2, Workers: 2},
		KillKey: "PAY-002", StallKey: "PAY-004",
	},
	Vary: vary,
}

// variation is one set of Day 15's parameters.
type variation struct {
	dayspec.Policy
	KillKey  string // the worker is killed with this key's answer in flight
	StallKey string // this key's answer is held past the lease
}

func vary(rng *rand.Rand) dayspec.Variation {
	v := variation{Policy: dayspec.Policy{MaxAttempts: 5, BaseBackoff: 200 * time.Millisecond}}
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

// Fault kills the worker with KillKey's answer in flight, and holds
// StallKey's answer past the lease; each once.
func (v variation) Fault(key string, _ int, fired map[string]bool) sched.Fault {
	switch {
	case key == v.KillKey && !fired["kill"]:
		return sched.Fault{Name: "kill", Kill: true, Answered: true, Why: "killed with " + key + "'s answer in flight"}
	case key == v.StallKey && !fired["stall"]:
		return sched.Fault{Name: "stall", Stall: v.Lease + stallPast}
	}
	return sched.Fault{}
}

// Restarts: the killed worker is started again once.
func (variation) Restarts() int { return 1 }

func (v variation) Describe() []string {
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each", v.Payments, wassal.PaymentKey(v.Payments)),
		fmt.Sprintf("Faults    killed in flight at %s's status check (answered, never delivered); "+
			"%s's answer held for lease + %s", v.KillKey, v.StallKey, clock.Millis(stallPast)),
		fmt.Sprintf("Provider  declines %s, pays the rest", v.Declined),
		fmt.Sprintf("Policy    %s · lease %s · batch %d · MaxAttempts %d", report.Plural(v.Workers, "worker"),
			clock.Millis(v.Lease), v.Batch, v.MaxAttempts),
	}
}
