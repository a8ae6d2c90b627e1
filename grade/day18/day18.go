// Package day18 is Day 18 as grade judges it (docs/grade-protocol.md
// section 7.5), the lab's own lesson beyond the course text: the hosted
// worker. Handlers take scenario time, so a worker renews its lease before
// it ends, with a margin, up to a cap; new work arrives while workers wait
// for it; a drain announced in a lab call's answer asks a worker to release
// what it holds and exit before a hard kill.
package day18

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/sched"
	"outboxlab/scenarios/wassal"
)

// Day is Day 18.
var Day = &dayspec.Day{
	ID: "session-18", Aliases: []string{"day18"}, EnvDay: "18", Number: 18, Starter: "day18",
	Title:   "Day 18, the hosted worker: lease renewal, a drain, waiting without spinning",
	Summary: "long handlers renew their lease up to a cap; a drain releases claims; idle workers wait for new work",
	Design:  16, Role: "worker",
	Defaults: variation{
		Policy: dayspec.Policy{Payments: 8, Declined: "PAY-005", MaxAttempts: 5, Lease: 30 * time.Second,
			Batch: 1, Workers: 4},
		Margin: 10 * time.Second, Cap: 2 * time.Minute, Poll: time.Second, Grace: 5 * time.Second,
		DrainKey: "PAY-001", DrainFor: time.Minute, DrainAfter: 5 * time.Second,
		LongKey: "PAY-002", LongFor: 75 * time.Second,
		HangKey: "PAY-003", HangFor: 10 * time.Minute,
		Quick:    2 * time.Second,
		StallKey: "PAY-007", KillKey: "PAY-008",
		Arrivals: []time.Duration{40 * time.Second, 100 * time.Second},
		Shutdown: 3 * time.Minute,
	},
	Vary: vary,
}

// variation is one set of Day 18's parameters: one plain value of numbers
// and keys. The last len(Arrivals) payments are not seeded: the lab
// inserts each at its arrival time.
type variation struct {
	dayspec.Policy
	Margin, Cap, Poll, Grace time.Duration // the renewal margin and cap, the busy-poll floor, a drain's grace

	DrainKey   string        // its first handler takes DrainFor; its worker is drained DrainAfter into it
	DrainFor   time.Duration //
	DrainAfter time.Duration //
	LongKey    string        // its first handler takes LongFor (past the lease, within the cap)
	LongFor    time.Duration //
	HangKey    string        // its first handler takes HangFor (past the cap)
	HangFor    time.Duration //
	Quick      time.Duration // every other handler
	StallKey   string        // its first status answer held past the lease
	KillKey    string        // its first status check kills the worker, answer in flight

	Arrivals []time.Duration // when the last payments arrive, in order
	Shutdown time.Duration   // every worker drained, none started again
}

// vary draws other keys and numbers from the seed, keeping the run's shape:
// the long handler ends within the cap, the hung one runs past it, new work
// arrives while some workers wait and others hold long handlers.
func vary(rng *rand.Rand) dayspec.Variation {
	v := variation{Policy: dayspec.Policy{Workers: 4, Batch: 1, MaxAttempts: 3 + rng.IntN(3)}}
	v.Lease = []time.Duration{20, 30, 40}[rng.IntN(3)] * time.Second
	v.Margin = (v.Lease / time.Duration(3+rng.IntN(2))).Truncate(time.Millisecond)
	v.Cap = v.Lease * time.Duration(4+rng.IntN(2))
	v.Poll = []time.Duration{500, 1000, 2000}[rng.IntN(3)] * time.Millisecond
	v.Grace = []time.Duration{3, 5, 10}[rng.IntN(3)] * time.Second
	v.Quick = []time.Duration{1, 2, 3}[rng.IntN(3)] * time.Second
	seeded := 6 + rng.IntN(3)
	v.Payments = seeded + 2
	keys := rng.Perm(seeded)
	key := func(i int) string { return wassal.PaymentKey(keys[i] + 1) }
	v.DrainKey, v.LongKey, v.HangKey, v.Declined = key(0), key(1), key(2), key(3)
	v.DrainFor, v.DrainAfter = 2*v.Lease, (v.Lease / time.Duration(4+rng.IntN(3))).Truncate(time.Millisecond)
	v.LongFor = v.Lease*2 + v.Lease/2
	v.HangFor = 20 * v.Lease
	v.StallKey, v.KillKey = wassal.PaymentKey(seeded+1), wassal.PaymentKey(seeded+2)
	v.Arrivals = []time.Duration{(v.Lease + v.Lease/3).Truncate(time.Second), (3*v.Lease + v.Lease/3).Truncate(time.Second)}
	v.Shutdown = v.Cap + 2*v.Lease
	return v
}

// seeded is how many payments are there from the start.
func (v variation) seeded() int { return v.Payments - len(v.Arrivals) }

// handler is how long the handler of the n-th claim of key takes.
func (v variation) handler(key string, n int) time.Duration {
	if n == 1 {
		switch key {
		case v.DrainKey:
			return v.DrainFor
		case v.LongKey:
			return v.LongFor
		case v.HangKey:
			return v.HangFor
		}
	}
	return v.Quick
}

// Env adds the renewal margin and cap, the busy-poll floor.
func (v variation) Env() [][2]string {
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	return [][2]string{{"RENEW_MARGIN_MS", ms(v.Margin)}, {"RENEW_CAP_MS", ms(v.Cap)}, {"POLL_MS", ms(v.Poll)}}
}

// Fault holds the stall key's first answer past its lease and kills the
// worker at the kill key's first status check (the answer in flight).
func (v variation) Fault(key string, n int, fired map[string]bool) sched.Fault {
	switch {
	case key == v.KillKey && !fired["kill"]:
		return sched.Fault{Name: "kill", Kill: true, Answered: true, Why: "killed with " + key + "'s answer in flight"}
	case key == v.StallKey && !fired["stall"]:
		return sched.Fault{Name: "stall", Stall: v.Lease + stallPast}
	}
	return sched.Fault{}
}

// stallPast is how far past the lease a held answer is given.
const stallPast = 500 * time.Millisecond

// Restarts: the killed worker is started again once.
func (v variation) Restarts() int { return 1 }

func (v variation) Describe() []string {
	late := make([]string, len(v.Arrivals))
	for i, a := range v.Arrivals {
		late[i] = fmt.Sprintf("%s at +%s", wassal.PaymentKey(v.seeded()+1+i), clock.Millis(a))
	}
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus message each; "+
			"new work arrives: %s", v.seeded(), wassal.PaymentKey(v.seeded()), strings.Join(late, ", ")),
		fmt.Sprintf("Handlers  %s takes %s (its worker drained %s into it) · %s takes %s · %s hangs %s · the others %s",
			v.DrainKey, clock.Millis(v.DrainFor), clock.Millis(v.DrainAfter), v.LongKey, clock.Millis(v.LongFor),
			v.HangKey, clock.Millis(v.HangFor), clock.Millis(v.Quick)),
		fmt.Sprintf("Policy    lease %s · renew %s before it ends · cap %s from the claim · poll floor %s · "+
			"drain grace %s · batch %d · %s", clock.Millis(v.Lease), clock.Millis(v.Margin), clock.Millis(v.Cap),
			clock.Millis(v.Poll), clock.Millis(v.Grace), v.Batch, report.Plural(v.Workers, "worker")),
		fmt.Sprintf("Faults    %s's answer held for lease + %s · killed in flight at %s's status check · "+
			"shutdown at +%s · declines %s", v.StallKey, clock.Millis(stallPast), v.KillKey, clock.Millis(v.Shutdown), v.Declined),
	}
}

// keys are every payment's key, the late ones included.
func (v variation) keys() []string { return wassal.PaymentKeys(v.Payments) }

// healthy are the keys that must end Processed: all of them.
func (v variation) healthy() []string { return slices.Clone(v.keys()) }
