// Package judge turns what the lab saw of one variation into its checks,
// core/report's: each reads the truth — the rows, the change log the
// triggers wrote, the provider's ledger and the calls the lab answered —
// never what the worker says of itself. Here are the protocol: checks every
// Day has and the checks several Days share; a Day's own are in its package.
package judge

import (
	"fmt"
	"iter"
	"time"

	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/sched"
)

// Judge collects a variation's checks.
type Judge struct {
	Run *sched.Run // what the lab saw
	// First is the run before Run that had to refuse (Day 17's without an
	// approver); nil when the Day has none.
	First    *sched.Run
	Messages []changelog.Row            // OutboxMessages as the workers left them
	Payments []changelog.Row            // Payments as they left them
	Tables   map[string][]changelog.Row // the Day's own tables, read back
	Calls    []provider.Call            // the provider's ledger
	Provider *provider.Provider
	Lease    time.Duration // a claim's LockedUntilUtc is its turn's time + Lease
	// Renewals: a LockedUntilUtc written by a change that is not a claim
	// (a renewal, up to a cap) is the Day's checks' to judge (Day 18).
	Renewals bool

	checks []report.Check
}

// Checks are the checks judged so far, in order.
func (j *Judge) Checks() []report.Check { return j.checks }

// Add records a check: a grade's checks all demonstrate what the Day asks.
func (j *Judge) Add(name string, passed bool, detail string) {
	outcome := report.OutcomeBroken
	if passed {
		outcome = report.OutcomeHeld
	}
	j.checks = append(j.checks, report.Check{Name: name, Passed: passed, Detail: detail,
		Role: report.RoleDemonstrates, Outcome: outcome})
}

// AddExercised is Add for a check that needs something to have happened:
// the first of its problems fails it; a check with none that was not
// exercised is N/A in this run (its detail says what did not happen: grade
// fails a check that no run exercised); else ok is its figure.
func (j *Judge) AddExercised(name string, exercised bool, what string, problems []string, ok string) {
	switch {
	case len(problems) > 0:
		j.Add(name, false, firstOf(problems))
	case !exercised:
		j.checks = append(j.checks, report.Check{Name: name, Detail: "not exercised: " + what,
			Role: report.RoleDemonstrates, Outcome: report.OutcomeNotExercised})
	default:
		j.Add(name, true, ok)
	}
}

// firstOf is the first problem and how many more there were.
func firstOf(problems []string) string {
	if len(problems) == 1 {
		return problems[0]
	}
	return fmt.Sprintf("%s (and %d more)", problems[0], len(problems)-1)
}

// TurnAt is the scenario time of the turn a change happened in.
func (j *Judge) TurnAt(c changelog.Change) (time.Time, bool) {
	if c.Turn < 0 || c.Turn >= len(j.Run.Turns) {
		return time.Time{}, false
	}
	return j.Run.Turns[c.Turn].At, true
}

// TurnUpdates are the change log's updates made during a worker's turn,
// each with its turn's scenario time.
func (j *Judge) TurnUpdates() iter.Seq2[changelog.Change, time.Time] {
	return func(yield func(changelog.Change, time.Time) bool) {
		for _, c := range j.Run.Changes {
			if c.Op != "UPDATE" {
				continue
			}
			if at, ok := j.TurnAt(c); ok && !yield(c, at) {
				return
			}
		}
	}
}

// TurnWorker is the worker whose turn a change happened in ("" for none).
func (j *Judge) TurnWorker(c changelog.Change) string {
	if c.Turn < 0 || c.Turn >= len(j.Run.Turns) {
		return ""
	}
	return j.Run.Turns[c.Turn].Worker
}

// MessageChanges are the change log's OutboxMessages updates.
func (j *Judge) MessageChanges() []changelog.Change {
	var out []changelog.Change
	for _, c := range j.Run.Changes {
		if c.Table == "OutboxMessages" && c.Op == "UPDATE" {
			out = append(out, c)
		}
	}
	return out
}

// StatusChecks are the ledger's status checks for key.
func (j *Judge) StatusChecks(key string) []provider.Call {
	var out []provider.Call
	for _, c := range j.Calls {
		if c.Op == provider.OpStatusCheck && c.Key == key {
			out = append(out, c)
		}
	}
	return out
}

// Message is the OutboxMessages row of key (nil when there is none).
func (j *Judge) Message(key string) changelog.Row {
	for _, m := range j.Messages {
		if m.Get("MessageKey") == key {
			return m
		}
	}
	return nil
}

// Payment is the Payments row of key (nil when there is none).
func (j *Judge) Payment(key string) changelog.Row {
	for _, p := range j.Payments {
		if p.Get("PaymentKey") == key {
			return p
		}
	}
	return nil
}

// FailureText is the text of the failure a worker records in c, its
// message's attempt n: the ledger's n-th status check of the message's key,
// when that check failed.
func (j *Judge) FailureText(c changelog.Change, n int) (string, bool) {
	key, _ := c.NewValue("MessageKey")
	checks := j.StatusChecks(key)
	if n < 1 || n > len(checks) || !checks[n-1].Failed() {
		return "", false
	}
	return checks[n-1].Err, true
}
