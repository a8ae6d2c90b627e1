// Package day16 is Day 16 as grade judges it (docs/grade-protocol.md
// section 7.1): one worker; bounded retries, backoff and a dead-letter exit
// for a poison key, a declined key and a transient key.
package day16

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/scenarios/wassal"
)

// Day is Day 16.
var Day = &dayspec.Day{
	ID: "session-16", Aliases: []string{"day16"}, EnvDay: "16", Number: 16, Starter: "day16",
	Title:   "Day 16, bounded retries, backoff and a dead-letter exit",
	Summary: "a poison key, a declined key and a transient key; MaxAttempts, backoff, dead letter",
	Design:  16, Role: "worker",
	Defaults: variation{
		Policy: dayspec.Policy{Payments: 6, Declined: "PAY-005", MaxAttempts: 3, BaseBackoff: 200 * time.Millisecond,
			Lease: claim.DefaultLease, Batch: 10, Workers: 1},
		// The course's own run: no transient key (the variations add one).
		Poison: []string{"PAY-003"},
	},
	Vary: vary,
}

// variation is one set of Day 16's parameters.
type variation struct {
	dayspec.Policy
	Poison         []string // status check fails every time
	Transient      string   // fails the first TransientFails checks, then pays
	TransientFails int
}

// vary draws other keys and numbers: a worker that hard-codes the course's
// fails one of them.
func vary(rng *rand.Rand) dayspec.Variation {
	v := variation{Policy: dayspec.Policy{Workers: 1, Lease: claim.DefaultLease}}
	v.Payments = 4 + rng.IntN(6)
	v.MaxAttempts = 2 + rng.IntN(4)
	keys := rng.Perm(v.Payments)
	v.Poison = []string{wassal.PaymentKey(keys[0] + 1)}
	v.Declined = wassal.PaymentKey(keys[1] + 1)
	v.Transient = wassal.PaymentKey(keys[2] + 1)
	v.TransientFails = 1 + rng.IntN(v.MaxAttempts-1)
	v.BaseBackoff = []time.Duration{100, 150, 200, 250, 300, 500}[rng.IntN(6)] * time.Millisecond
	if rng.IntN(3) == 0 {
		v.MaxBackoff = 2 * v.BaseBackoff
	}
	v.Batch = []int{1, 2, 3, 5, 10}[rng.IntN(5)]
	v.Lease = []time.Duration{10, 30, 60}[rng.IntN(3)] * time.Second
	return v
}

// Provider fails every check of the poison, declines one key, and fails
// the transient key's first checks.
func (v variation) Provider() *provider.Provider {
	p := wassal.NewProvider(v.Poison, v.Declined)
	if v.Transient != "" {
		p.Script(v.Transient, provider.Rule{Outcome: provider.Paid, FailFirst: v.TransientFails})
	}
	return p
}

func (v variation) Describe() []string {
	cap := "no cap"
	if v.MaxBackoff > 0 {
		cap = "cap " + clock.Millis(v.MaxBackoff)
	}
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each", v.Payments, wassal.PaymentKey(v.Payments)),
		fmt.Sprintf("Provider  poison %s (fails every check) · declines %s · %s",
			strings.Join(v.Poison, ","), v.Declined, v.transientText()),
		fmt.Sprintf("Policy    MaxAttempts %d · backoff %s doubling (%s) · lease %s · batch %d · %s",
			v.MaxAttempts, clock.Millis(v.BaseBackoff), cap, clock.Millis(v.Lease), v.Batch, report.Plural(v.Workers, "worker")),
	}
}

// healthy are the keys that are not poison.
func (v variation) healthy() []string {
	var keys []string
	for _, k := range wassal.PaymentKeys(v.Payments) {
		if !slices.Contains(v.Poison, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// transientText says what the transient key does, or that there is none.
func (v variation) transientText() string {
	if v.Transient == "" {
		return "no transient key"
	}
	return fmt.Sprintf("transient %s (fails %s, then pays)", v.Transient, report.Plural(v.TransientFails, "check"))
}
