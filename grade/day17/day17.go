// Package day17 is Day 17 as grade judges it (docs/grade-protocol.md
// section 7.3): the student's redrive, run on Day 16's end (built by the
// lab's own code) with the lab's own Day 16 worker draining what it
// releases while it sleeps; first without an approver, when it must refuse.
// The first run is the course's own (session-17-audited-redrive): Day 16's
// end with its one dead letter, PAY-003, redriven at 09:30 by ops-oncall.
package day17

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/scenarios/wassal"
)

// Day is Day 17.
var Day = &dayspec.Day{
	ID: "session-17", Aliases: []string{"day17"}, EnvDay: "17", Number: 17, Starter: "day17",
	Title:   "Day 17, an audited redrive",
	Summary: "your redrive on Day 16's end: authorised, audited, counters kept, in batches, verified",
	Design:  17, Role: "redrive",
	Tables: []dayspec.Table{{Name: "Redrives", Show: showRedrives}, {Name: "AuditLog"}},
	MayAsk: redriven,
	// The course's own run (session-17-audited-redrive): Day 16's end as
	// the course leaves it, PAY-003 its one dead letter; the provider fixed
	// (PAY-003 now declines); approver ops-oncall with the INC-4711 reason;
	// batches of 2, 1 s apart, one more attempt each. The course's figures
	// follow: 1 entry released in 1 batch, AttemptCount 3 kept and
	// MaxAttempts 3 → 4, verified Declined, its payment Failed, Closed.
	// The variations add the other dead letters (More) and several batches.
	Defaults: variation{
		Policy: dayspec.Policy{Payments: 6, Declined: "PAY-005", MaxAttempts: 3, BaseBackoff: 200 * time.Millisecond,
			Lease: claim.DefaultLease, Batch: 10, Workers: 1},
		Poison: []string{"PAY-003"},
		Fixed:  true, Approver: "ops-oncall", Reason: "INC-4711: provider status API restored",
		RedriveBatch: 2, RedriveEvery: time.Second, RedriveMore: 1,
	},
	CourseRun: true,
	Vary:      vary,
}

// variation is one set of Day 17's parameters.
type variation struct {
	dayspec.Policy
	Poison       []string // its status check fails in Day 16's drain; declined once fixed
	More         []string // keys that fail in Day 16's drain, then pay once fixed
	Fixed        bool     // the provider is fixed before the redrive
	Approver     string
	Reason       string
	RedriveBatch int
	RedriveEvery time.Duration
	RedriveMore  int  // attempts a redriven entry gets
	refusal      bool // this run withholds the approver (the redrive must refuse)
}

func vary(rng *rand.Rand) dayspec.Variation {
	v := variation{Policy: dayspec.Policy{Workers: 1, Batch: 10, Lease: claim.DefaultLease, BaseBackoff: 200 * time.Millisecond}}
	v.Payments = 5 + rng.IntN(5)
	v.MaxAttempts = 2 + rng.IntN(3)
	keys := rng.Perm(v.Payments)
	v.Poison = []string{wassal.PaymentKey(keys[0] + 1)}
	v.Declined = wassal.PaymentKey(keys[1] + 1)
	for _, k := range keys[2 : 3+rng.IntN(3)] {
		v.More = append(v.More, wassal.PaymentKey(k+1))
	}
	slices.Sort(v.More)
	v.Fixed = rng.IntN(3) != 0
	v.Approver = []string{"alice", "ops-oncall", "bob.s"}[rng.IntN(3)]
	v.Reason = []string{"INC-9: status API back", "CHG-2201 provider fixed", "ticket 77: replay"}[rng.IntN(3)]
	v.RedriveBatch = 1 + rng.IntN(3)
	v.RedriveEvery = []time.Duration{500, 1000, 2000}[rng.IntN(3)] * time.Millisecond
	v.RedriveMore = 1 + rng.IntN(2)
	return v
}

// Provider fails every check of the poison and declines one key; Setup
// breaks the others it dead-letters, then fixes them (or not).
func (v variation) Provider() *provider.Provider { return wassal.NewProvider(v.Poison, v.Declined) }

// Env is the redrive's own environment; without an approver in the run
// that must refuse.
func (v variation) Env() [][2]string {
	approver := v.Approver
	if v.refusal {
		approver = ""
	}
	return [][2]string{
		{"APPROVER", approver}, {"REASON", v.Reason},
		{"REDRIVE_BATCH", strconv.Itoa(v.RedriveBatch)},
		{"REDRIVE_INTERVAL_MS", strconv.FormatInt(v.RedriveEvery.Milliseconds(), 10)},
		{"REDRIVE_ATTEMPTS", strconv.Itoa(v.RedriveMore)},
	}
}

// FirstRun is the redrive without an approver: it must refuse, touching nothing.
func (v variation) FirstRun() (dayspec.Variation, string) {
	if v.refusal {
		return nil, ""
	}
	first := v
	first.refusal = true
	return first, "run without an approver"
}

func (v variation) Describe() []string {
	fixed := "fixed before the redrive: the poison declines, the others pay"
	if !v.Fixed {
		fixed = "still broken: every dead letter's status check fails again"
	}
	return []string{
		fmt.Sprintf("Day 16    %d payments drained by the lab's worker (MaxAttempts %d): %s dead-lettered",
			v.Payments, v.MaxAttempts, strings.Join(append(append([]string{}, v.Poison...), v.More...), ",")),
		"Provider  " + fixed,
		fmt.Sprintf("Redrive   at +30 min · approver %q · reason %q", v.Approver, v.Reason),
		fmt.Sprintf("          batches of %d, %s apart, %s more each; first without an approver",
			v.RedriveBatch, clock.Millis(v.RedriveEvery), report.Plural(v.RedriveMore, "attempt")),
	}
}
