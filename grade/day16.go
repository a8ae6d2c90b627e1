package grade

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/scenarios/wassal"
)

// The lab's own seeding and provider script, from the Day 16 scenarios.
var (
	seed           = wassal.SeedDurableOutbox
	scriptProvider = wassal.NewProvider
)

func init() {
	days = append(days, &Day{
		ID: "session-16", Aliases: []string{"day16"}, EnvDay: "16", Number: 16,
		Title:   "Day 16, bounded retries, backoff and a dead-letter exit",
		Summary: "a poison key, a declined key and a transient key; MaxAttempts, backoff, dead letter",
		defaults: variation{
			Payments: 6, Poison: []string{"PAY-003"}, Declined: "PAY-005", Transient: "PAY-002", TransientFails: 1,
			MaxAttempts: 3, BaseBackoff: 200 * time.Millisecond, Lease: claim.DefaultLease, Batch: 10, Workers: 1,
		},
		vary:     varyDay16,
		judge:    judgeDay16,
		describe: describeDay16,
	})
}

// varyDay16 draws other keys and numbers: a worker that hard-codes the
// course's fails one of them.
func varyDay16(rng *rand.Rand, label string) variation {
	v := variation{Label: label, Workers: 1, Lease: claim.DefaultLease}
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

func describeDay16(v variation) []string {
	cap := "no cap"
	if v.MaxBackoff > 0 {
		cap = "cap " + clock.Millis(v.MaxBackoff)
	}
	return []string{
		fmt.Sprintf("Seeded    %d payments PAY-001…%s (PendingConfirmation), one ConfirmPaymentStatus "+
			"message each", v.Payments, wassal.PaymentKey(v.Payments)),
		fmt.Sprintf("Provider  poison %s (fails every check) · declines %s · transient %s (fails %s, then pays)",
			strings.Join(v.Poison, ","), v.Declined, v.Transient, count(v.TransientFails, "check")),
		fmt.Sprintf("Policy    MaxAttempts %d · backoff %s doubling (%s) · lease %s · batch %d · %s",
			v.MaxAttempts, clock.Millis(v.BaseBackoff), cap, clock.Millis(v.Lease), v.Batch, count(v.Workers, "worker")),
	}
}

// judgeDay16 adds the checks of docs/grade-protocol.md section 7.1.
func judgeDay16(j *judge) {
	j.healthyProcessed()
	j.poisonAttempts()
	j.poisonParked()
	j.transientRetried()
	j.backoffGated()
	j.countedAtClaim(true)
	j.leaseTaken()
	j.drained()
	j.noRowLost()
	j.providerIDs()
	j.noCharges()
}

func (j *judge) healthy() []string {
	var keys []string
	for i := 1; i <= j.g.v.Payments; i++ {
		k := wassal.PaymentKey(i)
		if !slices.Contains(j.g.v.Poison, k) && k != j.g.v.Lethal {
			keys = append(keys, k)
		}
	}
	return keys
}

// processedCount is how many times the change log saw message id become Processed.
func (j *judge) processedCount(id string) int {
	n := 0
	for _, c := range j.messageChanges() {
		if s, _ := c.value("Status"); s == "Processed" && fmt.Sprint(c.RowID) == id && c.changedCol("Status") {
			n++
		}
	}
	return n
}

func (j *judge) healthyProcessed() {
	var problems []string
	keys := j.healthy()
	for _, k := range keys {
		m, p := j.message(k), j.payment(k)
		if m == nil || p == nil {
			problems = append(problems, k+": its row is gone")
			continue
		}
		if st := m.get("Status"); st != "Processed" {
			problems = append(problems, fmt.Sprintf("%s is %s, not Processed", k, st))
			continue
		}
		if n := j.processedCount(m.get("Id")); n != 1 {
			problems = append(problems, fmt.Sprintf("%s became Processed %d times", k, n))
		}
		want := "Paid"
		if k == j.g.v.Declined {
			want = "Failed"
		}
		if st := p.get("Status"); st != want {
			problems = append(problems, fmt.Sprintf("payment %s is %s, want %s", k, st, want))
		} else if want == "Paid" && !j.g.r.prov.Issued(k, p.get("ProviderTransactionId")) {
			problems = append(problems, fmt.Sprintf("payment %s Paid with %s, not the provider's id", k,
				orDash(p.get("ProviderTransactionId"))))
		} else if want == "Failed" && p.has("ProviderTransactionId") {
			problems = append(problems, fmt.Sprintf("declined %s has transaction id %s", k, p.get("ProviderTransactionId")))
		}
	}
	j.addExercised("every healthy message Processed once; its payment Paid with the provider's id, "+
		"or Failed when declined", len(keys) > 0, "no healthy message", problems,
		fmt.Sprintf("%s, %s declined", count(len(keys), "message"), j.g.v.Declined))
}

func (j *judge) poisonAttempts() {
	var problems []string
	for _, k := range j.g.v.Poison {
		m := j.message(k)
		calls := len(j.statusChecks(k))
		if m == nil {
			problems = append(problems, k+": its message is gone")
			continue
		}
		if a := atoi(m.get("AttemptCount")); a != j.g.v.MaxAttempts || calls != j.g.v.MaxAttempts {
			problems = append(problems, fmt.Sprintf("%s: AttemptCount %d, %s in the ledger; want %d of each",
				k, a, count(calls, "status check"), j.g.v.MaxAttempts))
		}
	}
	j.addExercised("the poison tried exactly MaxAttempts times (row and provider ledger agree)",
		len(j.g.v.Poison) > 0, "no poison key", problems,
		fmt.Sprintf("%s: %d attempts, %d status checks", strings.Join(j.g.v.Poison, ","), j.g.v.MaxAttempts, j.g.v.MaxAttempts))
}

func (j *judge) poisonParked() {
	var problems []string
	for _, k := range j.g.v.Poison {
		m, p := j.message(k), j.payment(k)
		if m == nil || p == nil {
			problems = append(problems, k+": its row is gone")
			continue
		}
		checks := j.statusChecks(k)
		switch {
		case m.get("Status") != "DeadLettered":
			problems = append(problems, fmt.Sprintf("%s is %s, not DeadLettered", k, m.get("Status")))
		case !m.has("DeadLetteredAtUtc"):
			problems = append(problems, k+" has no DeadLetteredAtUtc")
		case len(checks) == 0 || m.get("LastError") != checks[len(checks)-1].Err:
			problems = append(problems, fmt.Sprintf("%s LastError %q, want the last failure's text", k, clip(m.get("LastError"), 40)))
		case m.has("LockedBy"):
			problems = append(problems, fmt.Sprintf("%s is dead-lettered still locked by %s", k, m.get("LockedBy")))
		}
		if p.get("Status") != "PendingConfirmation" || p.has("ProviderTransactionId") {
			problems = append(problems, fmt.Sprintf("payment %s is %s %s: a dead letter invents no outcome",
				k, p.get("Status"), p.get("ProviderTransactionId")))
		}
	}
	j.addExercised("the poison DeadLettered with its LastError; its payment still PendingConfirmation",
		len(j.g.v.Poison) > 0, "no poison key", problems, "parked, no outcome invented")
}

func (j *judge) transientRetried() {
	v := j.g.v
	var problems []string
	m, p := j.message(v.Transient), j.payment(v.Transient)
	want := v.TransientFails + 1
	switch {
	case m == nil || p == nil:
		problems = append(problems, v.Transient+": its row is gone")
	case m.get("Status") != "Processed" || p.get("Status") != "Paid":
		problems = append(problems, fmt.Sprintf("%s is %s, its payment %s; want Processed and Paid",
			v.Transient, m.get("Status"), p.get("Status")))
	case atoi(m.get("AttemptCount")) != want || len(j.statusChecks(v.Transient)) != want:
		problems = append(problems, fmt.Sprintf("%s: AttemptCount %s, %s; want %d of each", v.Transient,
			m.get("AttemptCount"), count(len(j.statusChecks(v.Transient)), "status check"), want))
	}
	j.addExercised(fmt.Sprintf("the transient key Processed after K+1 attempts (K = %d failures)", v.TransientFails),
		v.Transient != "" && v.TransientFails < v.MaxAttempts, "no transient key below MaxAttempts", problems,
		fmt.Sprintf("%s: %d attempts", v.Transient, want))
}

// backoffGated judges every failure and every retry from the change log:
// the failure's NextAttemptUtc is its turn's time + backoff(n) exactly, and
// no claim happens before the NextAttemptUtc it found.
func (j *judge) backoffGated() {
	var problems []string
	failures, retries := 0, 0
	for _, c := range j.messageChanges() {
		at, ok := j.turnAt(c)
		if !ok {
			continue
		}
		status, _ := c.value("Status")
		old, _ := c.old("Status")
		if old == "Processing" && status == "Pending" {
			failures++
			n := atoi(c.New["attemptcount"])
			want := clock.ISO(at.Add(j.g.v.backoff(n)))
			if got, _ := c.value("NextAttemptUtc"); got != want {
				problems = append(problems, fmt.Sprintf("message %d failed attempt %d at %s: NextAttemptUtc %s, want %s",
					c.RowID, n, clock.Stamp(at), orDash(got), want))
			}
			if e, _ := c.value("LastError"); e == "" {
				problems = append(problems, fmt.Sprintf("message %d failed attempt %d with no LastError", c.RowID, n))
			}
		}
		if isClaim(c) {
			if gate, ok := c.old("NextAttemptUtc"); ok {
				retries++
				if t, ok := parseISO(gate); !ok || at.Before(t) {
					problems = append(problems, fmt.Sprintf("message %d claimed at %s before its NextAttemptUtc %s",
						c.RowID, clock.Stamp(at), gate))
				}
			}
		}
	}
	j.addExercised("every retry waited for its NextAttemptUtc = failure time + backoff(n), exactly",
		failures > 0 && retries > 0, "no retry happened", problems,
		fmt.Sprintf("%s, %s, each gated", count(failures, "failure"), count(retries, "retry")))
}

// countedAtClaim judges the attempt count: +1 at every claim and never
// elsewhere; with ledger, every message's count equals its status checks.
func (j *judge) countedAtClaim(ledger bool) {
	var problems []string
	claims := 0
	for _, c := range j.messageChanges() {
		before, after := atoi(c.Old["attemptcount"]), atoi(c.New["attemptcount"])
		switch {
		case isClaim(c):
			claims++
			if after != before+1 {
				problems = append(problems, fmt.Sprintf("message %d claimed with AttemptCount %d→%d, want +1",
					c.RowID, before, after))
			}
		case c.changedCol("AttemptCount"):
			status, _ := c.value("Status")
			problems = append(problems, fmt.Sprintf("message %d AttemptCount %d→%d outside a claim (to %s)",
				c.RowID, before, after, status))
		}
	}
	if ledger {
		for _, m := range j.g.msgs {
			if m.get("MessageKey") == j.g.v.Lethal {
				continue // its handler crashed before the provider answered
			}
			if n := len(j.statusChecks(m.get("MessageKey"))); n != atoi(m.get("AttemptCount")) {
				problems = append(problems, fmt.Sprintf("%s: AttemptCount %s but %s",
					m.get("MessageKey"), m.get("AttemptCount"), count(n, "status check")))
			}
		}
	}
	j.addExercised("attempts counted at claim time: +1 at every claim, nowhere else", claims > 0,
		"no claim happened", problems, fmt.Sprintf("%s, each +1", count(claims, "claim")))
}

// leaseTaken judges every claim's lease and token, and that a record clears the lock.
func (j *judge) leaseTaken() {
	var problems []string
	claims := 0
	perTurn := map[int]int{}
	for _, c := range j.messageChanges() {
		at, ok := j.turnAt(c)
		if !ok {
			continue
		}
		status, _ := c.value("Status")
		if isClaim(c) {
			claims++
			perTurn[c.Turn]++
			owner, _ := c.value("LockedBy")
			until, _ := c.value("LockedUntilUtc")
			switch {
			case owner != j.turnWorker(c):
				problems = append(problems, fmt.Sprintf("message %d claimed in %s's turn with LockedBy %s",
					c.RowID, j.turnWorker(c), orDash(owner)))
			case until != clock.ISO(at.Add(j.g.v.Lease)):
				problems = append(problems, fmt.Sprintf("message %d claimed at %s with LockedUntilUtc %s, want now + lease",
					c.RowID, clock.Stamp(at), orDash(until)))
			case atoi(c.New["claimtoken"]) != atoi(c.Old["claimtoken"])+1:
				problems = append(problems, fmt.Sprintf("message %d claimed with ClaimToken %s→%s, want +1",
					c.RowID, c.Old["claimtoken"], c.New["claimtoken"]))
			}
			if old, _ := c.old("Status"); old == "Processing" {
				if lease, ok := c.old("LockedUntilUtc"); ok && lease >= clock.ISO(at) {
					problems = append(problems, fmt.Sprintf("message %d taken from %s at %s, its lease ran to %s",
						c.RowID, c.Old["lockedby"], clock.Stamp(at), lease))
				}
			}
			continue
		}
		if status != "Processing" && c.changedCol("Status") {
			if _, locked := c.value("LockedBy"); locked {
				problems = append(problems, fmt.Sprintf("message %d left %s still locked", c.RowID, status))
			}
		}
	}
	for turn, n := range perTurn {
		if n > j.g.v.Batch {
			problems = append(problems, fmt.Sprintf("%d messages claimed in one turn of %s, batch size %d",
				n, j.g.r.turns[turn].worker, j.g.v.Batch))
		}
	}
	j.addExercised("every claim takes the lease and the token; the record clears the lock", claims > 0,
		"no claim happened", problems, fmt.Sprintf("%s, at most %d a turn", count(claims, "claim"), j.g.v.Batch))
}

func (j *judge) drained() {
	var problems []string
	for _, m := range j.g.msgs {
		if st := m.get("Status"); st == "Pending" || st == "Processing" {
			problems = append(problems, fmt.Sprintf("%s is still %s", m.get("MessageKey"), st))
		}
	}
	j.addExercised("the queue drained: no Pending or Processing message left", len(j.g.msgs) > 0,
		"no message to drain", problems, fmt.Sprintf("%s, all settled", count(len(j.g.msgs), "message")))
}

func (j *judge) noRowLost() {
	var problems []string
	for _, c := range j.g.r.changes {
		if c.Op != "UPDATE" && (c.Table == "Payments" || c.Table == "OutboxMessages") {
			problems = append(problems, fmt.Sprintf("%s row %d: %s", c.Table, c.RowID, c.Op))
		}
	}
	n := j.g.v.Payments
	if len(j.g.msgs) != n || len(j.g.pays) != n {
		problems = append(problems, fmt.Sprintf("%d messages and %d payments, want %d of each", len(j.g.msgs), len(j.g.pays), n))
	}
	j.addExercised("no row deleted, inserted or duplicated", n > 0, "nothing seeded", problems,
		fmt.Sprintf("%d messages, %d payments", n, n))
}

func (j *judge) providerIDs() {
	var problems []string
	paid := 0
	for _, p := range j.g.pays {
		if !p.has("ProviderTransactionId") {
			continue
		}
		paid++
		if !j.g.r.prov.Issued(p.get("PaymentKey"), p.get("ProviderTransactionId")) {
			problems = append(problems, fmt.Sprintf("%s has %s, which the provider never issued to it",
				p.get("PaymentKey"), clip(p.get("ProviderTransactionId"), 24)))
		}
	}
	j.addExercised("transaction ids only from the provider", paid > 0, "no payment has a transaction id",
		problems, fmt.Sprintf("%s, each issued", count(paid, "transaction id")))
}

func (j *judge) noCharges() {
	n := 0
	for _, c := range j.g.calls {
		if c.Op != "status-check" {
			n++
		}
	}
	j.add("no money moved: no charge (a status check only reports)", n == 0,
		fmt.Sprintf("%s", count(n, "charge")))
}
