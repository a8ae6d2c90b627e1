// Package day15 is Day 15 as grade judges it (docs/grade-protocol.md
// section 7.2): two or three workers, one owner at a time. The lab kills a
// worker while its provider call is in flight (the provider answered; the
// worker never recorded it), and holds another worker's answer past its
// lease so that someone else takes the message over: the stalled worker's
// late completion must be refused. The first run is the course's own
// (session-15-outbox-leasing); in the variations the killed worker's
// restart says hello exactly when its lost lease ends, so that a lease
// taken at LockedUntilUtc <= now differs from the page's <.
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
	// The course's own run (session-15-outbox-leasing): three workers, six
	// payments, PAY-005 declined, a 30 s lease; PAY-001's worker killed with
	// the provider's answer in flight, PAY-006's answer held 45 s. One
	// message a claim, as the course's killed worker-c claims one: the kill
	// loses PAY-001 alone, so the course's figures follow: 8 claims, 8
	// status checks (PAY-001 and PAY-006 twice), 2 takeovers, 1 late
	// completion refused, 5 Paid and 1 Failed.
	Defaults: variation{
		Policy: dayspec.Policy{Payments: 6, Declined: "PAY-005", MaxAttempts: 5, BaseBackoff: 200 * time.Millisecond,
			Lease: claim.DefaultLease, Batch: 1, Workers: 3},
		KillKey: "PAY-001", StallKey: "PAY-006", Stall: 45 * time.Second,
	},
	CourseRun: true,
	Vary:      vary,
}

// variation is one set of Day 15's parameters.
type variation struct {
	dayspec.Policy
	KillKey  string        // the worker is killed with this key's answer in flight
	StallKey string        // this key's answer is held past the lease
	Stall    time.Duration // how long it is held (0: the lease + stallPast)
	// RestartAtLease answers the killed worker's restarted hello exactly
	// when the lease of the claim it lost ends: a lease taken at
	// LockedUntilUtc <= now takes the message inside it.
	RestartAtLease bool
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
	v.RestartAtLease = true
	return v
}

// stall is how long StallKey's answer is held: past the lease, so that
// another worker (sleeping to the lease end + 1 ms) takes the message over.
func (v variation) stall() time.Duration {
	if v.Stall > v.Lease {
		return v.Stall
	}
	return v.Lease + stallPast
}

// Fault kills the worker with KillKey's answer in flight, and holds
// StallKey's answer past the lease; each once.
func (v variation) Fault(key string, _ int, fired map[string]bool) sched.Fault {
	switch {
	case key == v.KillKey && !fired["kill"]:
		return sched.Fault{Name: "kill", Kill: true, Answered: true, RestartAtLease: v.RestartAtLease,
			Why: "killed with " + key + "'s answer in flight"}
	case key == v.StallKey && !fired["stall"]:
		return sched.Fault{Name: "stall", Stall: v.stall()}
	}
	return sched.Fault{}
}

// Restarts: the killed worker is started again once.
func (variation) Restarts() int { return 1 }

func (v variation) Describe() []string {
	held := "lease + " + clock.Millis(stallPast)
	if v.Stall > v.Lease {
		held = clock.Millis(v.Stall)
	}
	restart := "restarted at once"
	if v.RestartAtLease {
		restart = "restarted, its hello answered exactly when its lost lease ends"
	}
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each", v.Payments, wassal.PaymentKey(v.Payments)),
		fmt.Sprintf("Faults    killed in flight at %s's status check (answered, never delivered), %s; "+
			"%s's answer held for %s", v.KillKey, restart, v.StallKey, held),
		fmt.Sprintf("Provider  declines %s, pays the rest", v.Declined),
		fmt.Sprintf("Policy    %s · lease %s · batch %d · MaxAttempts %d", report.Plural(v.Workers, "worker"),
			clock.Millis(v.Lease), v.Batch, v.MaxAttempts),
	}
}
