// Package poisoncounter is poison-counter as grade judges it
// (docs/grade-protocol.md section 7.4): one message kills its consumer. The
// lab kills the worker's process tree when it asks the provider about the
// lethal key, as a crash in the handler would, and starts it again. Only a
// count taken at delivery survives the crash. The first run is the
// course's own (poison-counter.mjs, its "at delivery" row); in the
// variations each restart says hello when the lethal claim's lease ends,
// exactly or 1 ms before, so that a lease taken at LockedUntilUtc <= now
// (or a millisecond early) takes the message inside it.
package poisoncounter

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
	"outboxlab/scenarios/wassal"
)

// Day is poison-counter.
var Day = &dayspec.Day{
	ID: "poison-counter", EnvDay: "poison-counter", Family: "retry", Starter: "poisoncounter",
	Title:   "poison-counter, a message that kills its consumer",
	Summary: "the lethal message's handler crashes the worker; the count must be taken at delivery",
	Design:  16, Role: "worker",
	// The course's own run (poison-counter.mjs): five messages, the third
	// lethal, isolated at its third delivery (the course's threshold 3:
	// `attempt >= THRESHOLD` after counting the delivery), which is the
	// page's MaxAttempts 2: two deliveries reach the handler, the third
	// claim dead-letters it. The course's "at delivery" row follows: 3
	// lifetimes (2 restarts), 7 deliveries, 2 process deaths, 4 processed,
	// 1 dead letter, 0 remaining. PAY-005 declines (a Failed payment is a
	// processed message), as on every Day.
	Defaults: variation{
		Policy: dayspec.Policy{Payments: 5, Declined: "PAY-005", MaxAttempts: 2, BaseBackoff: 200 * time.Millisecond,
			Lease: claim.DefaultLease, Batch: 1, Workers: 1},
		Lethal: "PAY-003",
	},
	CourseRun: true,
	Vary:      vary,
}

// variation is one set of poison-counter's parameters.
type variation struct {
	dayspec.Policy
	Lethal string // the handler of this key crashes
	// RestartAtLease answers each restarted hello when the lethal claim's
	// lease ends: exactly after an odd delivery, 1 ms before after an even.
	RestartAtLease bool
}

// vary draws another lethal key, MaxAttempts, payments and lease. The batch
// stays 1: a batch would take healthy messages down with the lethal one at
// every crash.
func vary(rng *rand.Rand) dayspec.Variation {
	v := variation{Policy: dayspec.Policy{Workers: 1, Batch: 1, BaseBackoff: 200 * time.Millisecond}}
	v.Payments = 4 + rng.IntN(6)
	v.MaxAttempts = 2 + rng.IntN(4)
	keys := rng.Perm(v.Payments)
	v.Lethal = wassal.PaymentKey(keys[0] + 1)
	v.Declined = wassal.PaymentKey(keys[1] + 1)
	v.Lease = []time.Duration{5, 10, 30, 60}[rng.IntN(4)] * time.Second
	v.RestartAtLease = true
	return v
}

// Fault crashes the handler at every status check of the lethal key (the
// n-th); with RestartAtLease the restart waits for the lease's end.
func (v variation) Fault(key string, n int, _ map[string]bool) sched.Fault {
	if key != v.Lethal {
		return sched.Fault{}
	}
	f := sched.Fault{Kill: true, RestartAtLease: v.RestartAtLease, Why: "its handler crashed on the lethal " + key}
	if v.RestartAtLease && n%2 == 0 {
		f.Early = time.Millisecond
	}
	return f
}

// Restarts: as a supervisor would, a few more than MaxAttempts.
func (v variation) Restarts() int { return v.MaxAttempts + 2 }

func (v variation) Describe() []string {
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each", v.Payments, wassal.PaymentKey(v.Payments)),
		fmt.Sprintf("Fault     %s is lethal: the lab kills the worker's process group at its status check, "+
			"then restarts it (at most %d times)%s", v.Lethal, v.MaxAttempts+2, v.restartText()),
		fmt.Sprintf("Provider  declines %s, pays the rest", v.Declined),
		fmt.Sprintf("Policy    MaxAttempts %d · lease %s · batch %d · %s", v.MaxAttempts, clock.Millis(v.Lease),
			v.Batch, report.Plural(v.Workers, "worker")),
	}
}

// Judge adds the checks of docs/grade-protocol.md section 7.4.
func (v variation) Judge(j *judge.Judge) {
	v.lethalDeadLettered(j)
	j.HealthyProcessed(v.healthy(), v.Declined)
	v.restartsCounted(j)
	j.CountedAtClaim(true, v.Lethal) // the lethal handler crashed before the provider answered
	j.LeaseTaken(v.Batch)
	j.ClaimOrder()
	j.ColumnsWritten()
	j.Drained()
	j.NoRowLost(v.Payments)
	j.ProviderIDs()
	j.NoCharges()
}

// healthy are the keys that are not lethal.
func (v variation) healthy() []string {
	var keys []string
	for _, k := range wassal.PaymentKeys(v.Payments) {
		if k != v.Lethal {
			keys = append(keys, k)
		}
	}
	return keys
}

// deliveries counts the claims of message id in the change log.
func deliveries(j *judge.Judge, id string) int {
	n := 0
	for _, c := range j.MessageChanges() {
		if sched.IsClaim(c) && strconv.FormatInt(c.RowID, 10) == id {
			n++
		}
	}
	return n
}

func (v variation) lethalDeadLettered(j *judge.Judge) {
	var problems []string
	m, p := j.Message(v.Lethal), j.Payment(v.Lethal)
	switch {
	case m == nil || p == nil:
		problems = append(problems, v.Lethal+": its row is gone")
	case m.Get("Status") != "DeadLettered":
		problems = append(problems, fmt.Sprintf("%s is %s after %s, not DeadLettered", v.Lethal, m.Get("Status"),
			report.Plural(deliveries(j, m.Get("Id")), "delivery")))
	case deliveries(j, m.Get("Id")) != v.MaxAttempts || m.Int("AttemptCount") != v.MaxAttempts:
		problems = append(problems, fmt.Sprintf("%s: %s, AttemptCount %s; want %d of each", v.Lethal,
			report.Plural(deliveries(j, m.Get("Id")), "delivery"), m.Get("AttemptCount"), v.MaxAttempts))
	case m.Get("LastError") == "" || !m.Has("DeadLetteredAtUtc"):
		problems = append(problems, v.Lethal+" dead-lettered with no LastError or DeadLetteredAtUtc")
	case p.Get("Status") != "PendingConfirmation" || p.Has("ProviderTransactionId"):
		problems = append(problems, fmt.Sprintf("payment %s is %s: a dead letter invents no outcome", v.Lethal, p.Get("Status")))
	}
	j.AddExercised("the lethal message DeadLettered after exactly MaxAttempts deliveries", v.Lethal != "", "no lethal key", problems,
		fmt.Sprintf("%s: %d deliveries, then parked with its LastError", v.Lethal, v.MaxAttempts))
}

func (v variation) restartsCounted(j *judge.Judge) {
	restarts := 0
	for _, w := range j.Run.Workers {
		restarts += w.Restarts
	}
	var problems []string
	if restarts != v.MaxAttempts {
		problems = append(problems, fmt.Sprintf("%s, want MaxAttempts = %d", report.Plural(restarts, "restart"), v.MaxAttempts))
	}
	j.AddExercised("restarts = MaxAttempts: every delivery of the lethal message crashed once, no more",
		j.Run.Kills > 0, "the lethal message was never handled", problems, report.Plural(restarts, "restart"))
}

// restartText says when a restarted worker's hello is answered.
func (v variation) restartText() string {
	if !v.RestartAtLease {
		return ""
	}
	return ", its hello answered when the lethal claim's lease ends: exactly after an odd delivery, 1 ms before after an even"
}
