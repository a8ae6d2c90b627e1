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
	CourseRun: true,
	Vary:      vary,
}

// variation is one set of Day 16's parameters: one plain value, every
// field a number, a key or a list of them, so that a smaller failing case
// can be searched for by shrinking it (fewer payments, workers, faults).
type variation struct {
	dayspec.Policy
	Poison         []string // status check fails every time
	Transient      string   // fails the first TransientFails checks, then pays
	TransientFails int
	Runs           // what makes the invisible bugs observable; zero in the course's run
}

// vary draws other keys and numbers: a worker that hard-codes the course's
// fails one of them. Every variation also has the runs of
// docs/grade-protocol.md section 1.1, their keys and times drawn too.
func vary(rng *rand.Rand) dayspec.Variation {
	// Three workers: one stalled and one waiting for its restart leave one
	// to take the stalled message over.
	v := variation{Policy: dayspec.Policy{Workers: 3, Lease: claim.DefaultLease}}
	v.Payments = 5 + rng.IntN(5)
	v.MaxAttempts = 2 + rng.IntN(4)
	keys := rng.Perm(v.Payments)
	key := func(i int) string { return wassal.PaymentKey(keys[i] + 1) }
	v.Poison = []string{key(0)}
	v.Declined = key(1)
	v.Transient = key(2)
	v.TransientFails = 1 + rng.IntN(v.MaxAttempts-1)
	v.BaseBackoff = []time.Duration{100, 150, 200, 250, 300, 500}[rng.IntN(6)] * time.Millisecond
	if rng.IntN(3) == 0 {
		v.MaxBackoff = 2 * v.BaseBackoff
	}
	// One message a claim: a kill then loses no batch-mate's delivery, so
	// every attempt has its status check in the ledger.
	v.Batch = 1
	v.Lease = []time.Duration{10, 30, 60}[rng.IntN(3)] * time.Second
	v.Runs = Runs{KillKey: key(3), StallKey: key(4), KillAtMax: true, RestartAtLease: true, Numbered: true,
		Latency:  []time.Duration{50, 120, 250, 400}[rng.IntN(4)] * time.Millisecond,
		Boundary: v.Lease / 4,
		RowMax: []RowMax{{Key: v.Poison[0], Max: v.MaxAttempts + 1 + rng.IntN(2)},
			{Key: v.Transient, Max: 0}},
	}
	return v
}

// Provider fails every check of the poison, declines one key, and fails
// the transient key's first checks; Numbered, no two failures read alike.
func (v variation) Provider() *provider.Provider {
	p := provider.New(provider.Rule{Outcome: provider.Paid})
	for _, k := range v.Poison {
		p.Script(k, provider.Rule{FailFirst: provider.FailForever, Numbered: v.Numbered})
	}
	if v.Declined != "" {
		p.Script(v.Declined, provider.Rule{Outcome: provider.Declined})
	}
	if v.Transient != "" {
		p.Script(v.Transient, provider.Rule{Outcome: provider.Paid, FailFirst: v.TransientFails, Numbered: v.Numbered})
	}
	return p
}

func (v variation) Describe() []string {
	cap := "no cap"
	if v.MaxBackoff > 0 {
		cap = "cap " + clock.Millis(v.MaxBackoff)
	}
	return append([]string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each%s", v.Payments, wassal.PaymentKey(v.Payments), v.rowMaxText()),
		fmt.Sprintf("Provider  poison %s (fails every check) · declines %s · %s",
			strings.Join(v.Poison, ","), v.Declined, v.transientText()),
		fmt.Sprintf("Policy    MaxAttempts %d · backoff %s doubling (%s) · lease %s · batch %d · %s",
			v.MaxAttempts, clock.Millis(v.BaseBackoff), cap, clock.Millis(v.Lease), v.Batch, report.Plural(v.Workers, "worker")),
	}, v.Runs.describe(v.Poison)...)
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
