package judge

import (
	"fmt"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/sched"
)

// The checks several Days share (docs/grade-protocol.md section 7).

// processedCount is how many times the change log saw message id become Processed.
func (j *Judge) processedCount(id string) int {
	n := 0
	for _, c := range j.MessageChanges() {
		if s, _ := c.NewValue("Status"); s == "Processed" && strconv.FormatInt(c.RowID, 10) == id && c.Changed("Status") {
			n++
		}
	}
	return n
}

// HealthyProcessed: every healthy message (keys) Processed once, its
// payment Paid with the provider's id, or Failed when declined.
func (j *Judge) HealthyProcessed(keys []string, declined string) {
	var problems []string
	for _, k := range keys {
		m, p := j.Message(k), j.Payment(k)
		if m == nil || p == nil {
			problems = append(problems, k+": its row is gone")
			continue
		}
		if st := m.Get("Status"); st != "Processed" {
			problems = append(problems, fmt.Sprintf("%s is %s, not Processed", k, st))
			continue
		}
		if n := j.processedCount(m.Get("Id")); n != 1 {
			problems = append(problems, fmt.Sprintf("%s became Processed %d times", k, n))
		}
		want := "Paid"
		if k == declined {
			want = "Failed"
		}
		if st := p.Get("Status"); st != want {
			problems = append(problems, fmt.Sprintf("payment %s is %s, want %s", k, st, want))
		} else if want == "Paid" && !j.Provider.Issued(k, p.Get("ProviderTransactionId")) {
			problems = append(problems, fmt.Sprintf("payment %s Paid with %s, not the provider's id", k,
				changelog.OrDash(p.Get("ProviderTransactionId"))))
		} else if want == "Failed" && p.Has("ProviderTransactionId") {
			problems = append(problems, fmt.Sprintf("declined %s has transaction id %s", k, p.Get("ProviderTransactionId")))
		}
	}
	j.AddExercised("every healthy message Processed once; its payment Paid with the provider's id, "+
		"or Failed when declined", len(keys) > 0, "no healthy message", problems,
		fmt.Sprintf("%s, %s declined", report.Plural(len(keys), "message"), declined))
}

// CountedAtClaim judges the attempt count: +1 at every claim and never
// elsewhere; with ledger, every message's count (but skip's, whose handler
// crashed before the provider answered) equals its status checks.
func (j *Judge) CountedAtClaim(ledger bool, skip string) {
	var problems []string
	claims := 0
	for _, c := range j.MessageChanges() {
		before, after := c.OldInt("AttemptCount"), c.NewInt("AttemptCount")
		switch {
		case sched.IsClaim(c):
			claims++
			if after != before+1 {
				problems = append(problems, fmt.Sprintf("message %d claimed with AttemptCount %d→%d, want +1",
					c.RowID, before, after))
			}
		case c.Changed("AttemptCount"):
			status, _ := c.NewValue("Status")
			problems = append(problems, fmt.Sprintf("message %d AttemptCount %d→%d outside a claim (to %s)",
				c.RowID, before, after, status))
		}
	}
	if ledger {
		for _, m := range j.Messages {
			if m.Get("MessageKey") == skip {
				continue
			}
			if n := len(j.StatusChecks(m.Get("MessageKey"))); n != m.Int("AttemptCount") {
				problems = append(problems, fmt.Sprintf("%s: AttemptCount %s but %s",
					m.Get("MessageKey"), m.Get("AttemptCount"), report.Plural(n, "status check")))
			}
		}
	}
	j.AddExercised("attempts counted at claim time: +1 at every claim, nowhere else", claims > 0,
		"no claim happened", problems, fmt.Sprintf("%s, each +1", report.Plural(claims, "claim")))
}

// LeaseTaken judges every claim's lease and token (at most batch claims a
// turn), and that a record clears the lock.
func (j *Judge) LeaseTaken(batch int) {
	var problems []string
	claims := 0
	perTurn := map[int]int{}
	owner := map[int64]sched.Turn{} // the turn of each message's last claim
	for _, c := range j.MessageChanges() {
		at, ok := j.TurnAt(c)
		if !ok {
			continue
		}
		if sched.IsClaim(c) {
			claims++
			perTurn[c.Turn]++
			problems = append(problems, j.claimProblems(c, at)...)
			owner[c.RowID] = j.Run.Turns[c.Turn]
			continue
		}
		if p := j.insideLease(c, at, owner[c.RowID]); p != "" {
			problems = append(problems, p)
		}
		status, _ := c.NewValue("Status")
		if status != "Processing" && c.Changed("Status") {
			if _, locked := c.NewValue("LockedBy"); locked {
				problems = append(problems, fmt.Sprintf("message %d left %s still locked", c.RowID, status))
			}
		}
	}
	for turn, n := range perTurn {
		if n > batch {
			problems = append(problems, fmt.Sprintf("%d messages claimed in one turn of %s, batch size %d",
				n, j.Run.Turns[turn].Worker, batch))
		}
	}
	j.AddExercised("every claim takes the lease and the token; the record clears the lock", claims > 0,
		"no claim happened", problems, fmt.Sprintf("%s, at most %d a turn", report.Plural(claims, "claim"), batch))
}

// claimProblems judges one claim at its turn's time: its owner, lease and
// token, and that it took no message inside another's live lease.
func (j *Judge) claimProblems(c changelog.Change, at time.Time) []string {
	var problems []string
	owner, _ := c.NewValue("LockedBy")
	until, _ := c.NewValue("LockedUntilUtc")
	switch {
	case owner != j.TurnWorker(c):
		problems = append(problems, fmt.Sprintf("message %d claimed in %s's turn with LockedBy %s",
			c.RowID, j.TurnWorker(c), changelog.OrDash(owner)))
	case until != clock.ISO(at.Add(j.Lease)):
		problems = append(problems, fmt.Sprintf("message %d claimed at %s with LockedUntilUtc %s, want now + lease",
			c.RowID, clock.Stamp(at), changelog.OrDash(until)))
	case c.NewInt("ClaimToken") != c.OldInt("ClaimToken")+1:
		problems = append(problems, fmt.Sprintf("message %d claimed with ClaimToken %s→%s, want +1",
			c.RowID, c.Old["claimtoken"], c.New["claimtoken"]))
	}
	if old, _ := c.OldValue("Status"); old == "Processing" {
		if lease, ok := c.OldValue("LockedUntilUtc"); ok && lease >= clock.ISO(at) {
			problems = append(problems, fmt.Sprintf("message %d taken from %s at %s, its lease ran to %s",
				c.RowID, c.Old["lockedby"], clock.Stamp(at), lease))
		}
	}
	return problems
}

// Drained: no Pending or Processing message left.
func (j *Judge) Drained() {
	var problems []string
	for _, m := range j.Messages {
		if st := m.Get("Status"); st == "Pending" || st == "Processing" {
			problems = append(problems, fmt.Sprintf("%s is still %s", m.Get("MessageKey"), st))
		}
	}
	j.AddExercised("the queue drained: no Pending or Processing message left", len(j.Messages) > 0,
		"no message to drain", problems, fmt.Sprintf("%s, all settled", report.Plural(len(j.Messages), "message")))
}

// NoRowLost: no row of Payments or OutboxMessages inserted or deleted, n of each.
func (j *Judge) NoRowLost(n int) {
	var problems []string
	for _, c := range j.Run.Changes {
		if c.Op != "UPDATE" && (c.Table == "Payments" || c.Table == "OutboxMessages") {
			problems = append(problems, fmt.Sprintf("%s row %d: %s", c.Table, c.RowID, c.Op))
		}
	}
	if len(j.Messages) != n || len(j.Payments) != n {
		problems = append(problems, fmt.Sprintf("%d messages and %d payments, want %d of each", len(j.Messages), len(j.Payments), n))
	}
	j.AddExercised("no row deleted, inserted or duplicated", n > 0, "nothing seeded", problems,
		fmt.Sprintf("%d messages, %d payments", n, n))
}

// ProviderIDs: every transaction id a payment holds was issued to it by the provider.
func (j *Judge) ProviderIDs() {
	var problems []string
	paid := 0
	for _, p := range j.Payments {
		if !p.Has("ProviderTransactionId") {
			continue
		}
		paid++
		if !j.Provider.Issued(p.Get("PaymentKey"), p.Get("ProviderTransactionId")) {
			problems = append(problems, fmt.Sprintf("%s has %s, which the provider never issued to it",
				p.Get("PaymentKey"), changelog.Clip(p.Get("ProviderTransactionId"), 24)))
		}
	}
	j.AddExercised("transaction ids only from the provider", paid > 0, "no payment has a transaction id",
		problems, fmt.Sprintf("%s, each issued", report.Plural(paid, "transaction id")))
}

// NoCharges: no money moved (a status check only reports).
func (j *Judge) NoCharges() {
	n := 0
	for _, c := range j.Calls {
		if c.Op != "status-check" {
			n++
		}
	}
	j.Add("no money moved: no charge (a status check only reports)", n == 0, report.Plural(n, "charge"))
}

// insideLease: a change that settles a Processing message inside its live
// lease is its owner's (the incarnation that claimed it) record; anyone
// else's, a dead letter at claim say, took it inside the lease.
func (j *Judge) insideLease(c changelog.Change, at time.Time, claimed sched.Turn) string {
	old, _ := c.OldValue("Status")
	lease, leased := c.OldValue("LockedUntilUtc")
	if old != "Processing" || !c.Changed("Status") || !leased || lease < clock.ISO(at) || claimed.Worker == "" {
		return ""
	}
	t := j.Run.Turns[c.Turn]
	if t.Worker == claimed.Worker && t.Inc == claimed.Inc {
		return ""
	}
	status, _ := c.NewValue("Status")
	return fmt.Sprintf("message %d made %s by %s (incarnation %d) at %s, inside the lease of %s's claim (to %s)",
		c.RowID, status, t.Worker, t.Inc, clock.Stamp(at), claimed.Worker, lease)
}
