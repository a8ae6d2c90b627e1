package day16

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
)

// Day 16's own checks: the poison, the transient key, the backoff gate.

// Judge adds the checks of docs/grade-protocol.md section 7.1.
func (v variation) Judge(j *judge.Judge) {
	j.HealthyProcessed(v.healthy(), v.Declined)
	v.poisonAttempts(j)
	v.poisonParked(j)
	v.transientRetried(j)
	v.backoffGated(j)
	j.KilledTakenOver(v.KillKey)
	j.LateRefused(v.StallKey)
	j.CountedAtClaim(true, "")
	j.LeaseTaken(v.Batch)
	j.ClaimOrder()
	j.ColumnsWritten()
	j.Drained()
	j.NoRowLost(v.Payments)
	j.ProviderIDs()
	j.NoCharges()
}

func (v variation) poisonAttempts(j *judge.Judge) {
	var problems []string
	for _, k := range v.Poison {
		m := j.Message(k)
		calls := len(j.StatusChecks(k))
		if m == nil {
			problems = append(problems, k+": its message is gone")
			continue
		}
		if a, want := m.Int("AttemptCount"), v.maxOf(k); a != want || calls != want {
			problems = append(problems, fmt.Sprintf("%s: AttemptCount %d, %s in the ledger; want its row's MaxAttempts, %d, of each",
				k, a, report.Plural(calls, "status check"), want))
		}
	}
	j.AddExercised("the poison tried exactly MaxAttempts times (its row's; row and provider ledger agree)",
		len(v.Poison) > 0, "no poison key", problems,
		fmt.Sprintf("%s: %d attempts, %d status checks", strings.Join(v.Poison, ","), v.maxOf(v.Poison[0]), v.maxOf(v.Poison[0])))
}

func (v variation) poisonParked(j *judge.Judge) {
	var problems []string
	for _, k := range v.Poison {
		m, p := j.Message(k), j.Payment(k)
		if m == nil || p == nil {
			problems = append(problems, k+": its row is gone")
			continue
		}
		checks := j.StatusChecks(k)
		switch {
		case m.Get("Status") != "DeadLettered":
			problems = append(problems, fmt.Sprintf("%s is %s, not DeadLettered", k, m.Get("Status")))
		case !m.Has("DeadLetteredAtUtc"):
			problems = append(problems, k+" has no DeadLetteredAtUtc")
		case v.deadLetteredAtClaim(j, m.Get("Id")) && m.Get("LastError") == "":
			problems = append(problems, k+" dead-lettered at claim with no LastError")
		case !v.deadLetteredAtClaim(j, m.Get("Id")) && (len(checks) == 0 || m.Get("LastError") != checks[len(checks)-1].Err):
			problems = append(problems, fmt.Sprintf("%s LastError %q, want the last failure's text", k,
				changelog.Clip(m.Get("LastError"), 40)))
		case m.Has("LockedBy"):
			problems = append(problems, fmt.Sprintf("%s is dead-lettered still locked by %s", k, m.Get("LockedBy")))
		}
		if p.Get("Status") != "PendingConfirmation" || p.Has("ProviderTransactionId") {
			problems = append(problems, fmt.Sprintf("payment %s is %s %s: a dead letter invents no outcome",
				k, p.Get("Status"), p.Get("ProviderTransactionId")))
		}
	}
	j.AddExercised("the poison DeadLettered with its LastError; its payment still PendingConfirmation",
		len(v.Poison) > 0, "no poison key", problems, "parked, no outcome invented")
}

func (v variation) transientRetried(j *judge.Judge) {
	var problems []string
	m, p := j.Message(v.Transient), j.Payment(v.Transient)
	want := v.TransientFails + 1
	switch {
	case v.Transient == "":
	case m == nil || p == nil:
		problems = append(problems, v.Transient+": its row is gone")
	case m.Get("Status") != "Processed" || p.Get("Status") != "Paid":
		problems = append(problems, fmt.Sprintf("%s is %s, its payment %s; want Processed and Paid",
			v.Transient, m.Get("Status"), p.Get("Status")))
	case m.Int("AttemptCount") != want || len(j.StatusChecks(v.Transient)) != want:
		problems = append(problems, fmt.Sprintf("%s: AttemptCount %s, %s; want %d of each", v.Transient,
			m.Get("AttemptCount"), report.Plural(len(j.StatusChecks(v.Transient)), "status check"), want))
	}
	j.AddExercised("the transient key Processed after K+1 attempts (K failures, K < MaxAttempts)",
		v.Transient != "" && (v.maxOf(v.Transient) == 0 || v.TransientFails < v.maxOf(v.Transient)),
		"no transient key below its MaxAttempts", problems,
		fmt.Sprintf("%s: %d attempts (K = %d)", v.Transient, want, v.TransientFails))
}

// backoffGated judges every failure and every retry from the change log:
// the failure's NextAttemptUtc is its turn's time + backoff(n) exactly, and
// no claim happens before the NextAttemptUtc it found.
func (v variation) backoffGated(j *judge.Judge) {
	var problems []string
	failures, retries := 0, 0
	for _, c := range j.MessageChanges() {
		at, ok := j.TurnAt(c)
		if !ok {
			continue
		}
		status, _ := c.NewValue("Status")
		old, _ := c.OldValue("Status")
		if old == "Processing" && status == "Pending" {
			failures++
			n := c.NewInt("AttemptCount")
			want := clock.ISO(at.Add(v.Backoff(n)))
			if got, _ := c.NewValue("NextAttemptUtc"); got != want {
				problems = append(problems, fmt.Sprintf("message %d failed attempt %d at %s: NextAttemptUtc %s, want %s",
					c.RowID, n, clock.Stamp(at), changelog.OrDash(got), want))
			}
			if e, _ := c.NewValue("LastError"); e == "" {
				problems = append(problems, fmt.Sprintf("message %d failed attempt %d with no LastError", c.RowID, n))
			} else if want, ok := j.FailureText(c, n); ok && e != want {
				problems = append(problems, fmt.Sprintf("message %d failed attempt %d with LastError %q, want that attempt's %q",
					c.RowID, n, changelog.Clip(e, 48), want))
			}
		}
		if sched.IsClaim(c) {
			if gate, ok := c.OldValue("NextAttemptUtc"); ok {
				retries++
				if t, ok := changelog.ParseISO(gate); !ok || at.Before(t) {
					problems = append(problems, fmt.Sprintf("message %d claimed at %s before its NextAttemptUtc %s",
						c.RowID, clock.Stamp(at), gate))
				}
			}
		}
	}
	j.AddExercised("every retry waited for its NextAttemptUtc = failure time + backoff(n), exactly",
		failures > 0 && retries > 0, "no retry happened", problems,
		fmt.Sprintf("%s, %s, each gated", report.Plural(failures, "failure"), report.Plural(retries, "retry")))
}

// deadLetteredAtClaim reports whether message id was dead-lettered by a
// claim (its lease had run out, or it was Pending) rather than by the
// record of its last attempt: its LastError is then the worker's own text.
func (v variation) deadLetteredAtClaim(j *judge.Judge, id string) bool {
	for _, c := range j.MessageChanges() {
		status, _ := c.NewValue("Status")
		if strconv.FormatInt(c.RowID, 10) != id || status != "DeadLettered" || !c.Changed("Status") {
			continue
		}
		at, _ := j.TurnAt(c)
		old, _ := c.OldValue("Status")
		lease, leased := c.OldValue("LockedUntilUtc")
		return old == "Pending" || old == "Processing" && (!leased || lease < clock.ISO(at))
	}
	return false
}
