package grade

import (
	"fmt"
	"math/rand/v2"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/scenarios/wassal"
)

// poison-counter (docs/grade-protocol.md section 7.4): one message kills its
// consumer. The lab kills the worker's process group when it asks the
// provider about the lethal key, as a crash in the handler would, and starts
// it again. Only a count taken at delivery survives the crash.

func init() {
	days = append(days, &Day{
		ID: "poison-counter", EnvDay: "poison-counter", Family: "retry",
		Title:   "poison-counter, a message that kills its consumer",
		Summary: "the lethal message's handler crashes the worker; the count must be taken at delivery",
		defaults: variation{
			Payments: 6, Lethal: "PAY-003", Declined: "PAY-005", MaxAttempts: 3,
			BaseBackoff: 200 * time.Millisecond, Lease: claim.DefaultLease, Batch: 1, Workers: 1,
		},
		vary:     varyPoisonCounter,
		fault:    lethalFault,
		restarts: func(v variation) int { return v.MaxAttempts + 2 },
		judge:    judgePoisonCounter,
		describe: describePoisonCounter,
	})
}

// varyPoisonCounter draws another lethal key, MaxAttempts, payments and
// lease. The batch stays 1: a batch would take healthy messages down with
// the lethal one at every crash.
func varyPoisonCounter(rng *rand.Rand, label string) variation {
	v := variation{Label: label, Workers: 1, Batch: 1, BaseBackoff: 200 * time.Millisecond}
	v.Payments = 4 + rng.IntN(6)
	v.MaxAttempts = 2 + rng.IntN(4)
	keys := rng.Perm(v.Payments)
	v.Lethal = wassal.PaymentKey(keys[0] + 1)
	v.Declined = wassal.PaymentKey(keys[1] + 1)
	v.Lease = []time.Duration{5, 10, 30, 60}[rng.IntN(4)] * time.Second
	return v
}

func lethalFault(r *run, s *slot, key string, _ int64) faultAction {
	if key != r.v.Lethal {
		return faultAction{}
	}
	return faultAction{kill: true, why: "its handler crashed on the lethal " + key}
}

func describePoisonCounter(v variation) []string {
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each", v.Payments, wassal.PaymentKey(v.Payments)),
		fmt.Sprintf("Fault     %s is lethal: the lab kills the worker's process group at its status check, "+
			"then restarts it (at most %d times)", v.Lethal, v.MaxAttempts+2),
		fmt.Sprintf("Provider  declines %s, pays the rest", v.Declined),
		fmt.Sprintf("Policy    MaxAttempts %d · lease %s · batch %d · %s", v.MaxAttempts, clock.Millis(v.Lease),
			v.Batch, count(v.Workers, "worker")),
	}
}

func judgePoisonCounter(j *judge) {
	j.lethalDeadLettered()
	j.healthyProcessed()
	j.restartsCounted()
	j.countedAtClaim(true)
	j.leaseTaken()
	j.drained()
	j.noRowLost()
	j.providerIDs()
	j.noCharges()
}

// deliveries counts the claims of message id in the change log.
func (j *judge) deliveries(id string) int {
	n := 0
	for _, c := range j.messageChanges() {
		if isClaim(c) && fmt.Sprint(c.RowID) == id {
			n++
		}
	}
	return n
}

func (j *judge) lethalDeadLettered() {
	v := j.g.v
	var problems []string
	m, p := j.message(v.Lethal), j.payment(v.Lethal)
	switch {
	case m == nil || p == nil:
		problems = append(problems, v.Lethal+": its row is gone")
	case m.get("Status") != "DeadLettered":
		problems = append(problems, fmt.Sprintf("%s is %s after %s, not DeadLettered", v.Lethal, m.get("Status"),
			count(j.deliveries(m.get("Id")), "delivery")))
	case j.deliveries(m.get("Id")) != v.MaxAttempts || atoi(m.get("AttemptCount")) != v.MaxAttempts:
		problems = append(problems, fmt.Sprintf("%s: %s, AttemptCount %s; want %d of each", v.Lethal,
			count(j.deliveries(m.get("Id")), "delivery"), m.get("AttemptCount"), v.MaxAttempts))
	case m.get("LastError") == "" || !m.has("DeadLetteredAtUtc"):
		problems = append(problems, v.Lethal+" dead-lettered with no LastError or DeadLetteredAtUtc")
	case p.get("Status") != "PendingConfirmation" || p.has("ProviderTransactionId"):
		problems = append(problems, fmt.Sprintf("payment %s is %s: a dead letter invents no outcome", v.Lethal, p.get("Status")))
	}
	j.addExercised(fmt.Sprintf("the lethal message DeadLettered after exactly MaxAttempts (%d) deliveries",
		v.MaxAttempts), v.Lethal != "", "no lethal key", problems,
		fmt.Sprintf("%s: %d deliveries, then parked with its LastError", v.Lethal, v.MaxAttempts))
}

func (j *judge) restartsCounted() {
	restarts := 0
	for _, s := range j.g.r.slots {
		restarts += s.restarts
	}
	var problems []string
	if restarts != j.g.v.MaxAttempts {
		problems = append(problems, fmt.Sprintf("%s, want MaxAttempts = %d", count(restarts, "restart"), j.g.v.MaxAttempts))
	}
	j.addExercised("restarts = MaxAttempts: every delivery of the lethal message crashed once, no more",
		j.g.r.kills > 0, "the lethal message was never handled", problems, count(restarts, "restart"))
}
