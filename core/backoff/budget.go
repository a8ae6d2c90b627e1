package backoff

import "time"

// Budget bounds a failing message twice: by count (the retry budget) and by
// time since its first delivery (the time budget). A message leaves for the
// dead letters when either runs out. A zero field means no bound of that kind.
type Budget struct {
	MaxAttempts int           // retry budget: the attempt that reaches it is the last
	MaxElapsed  time.Duration // time budget: no attempt may start later than this after the first delivery
}

// Exit names the budget that ran out.
type Exit string

// The ways out of retrying. NoExit means retry.
const (
	NoExit         Exit = ""
	RetryBudgetOut Exit = "retry budget"
	TimeBudgetOut  Exit = "time budget"
)

// After decides after failed attempt number attempt, made elapsed after the
// message's first delivery, whose next wait would be delay. The retry budget
// is checked first; the time budget runs out when the next attempt would
// start after MaxElapsed (starting exactly at it is allowed).
func (b Budget) After(attempt int, elapsed, delay time.Duration) Exit {
	if b.MaxAttempts > 0 && attempt >= b.MaxAttempts {
		return RetryBudgetOut
	}
	if b.MaxElapsed > 0 && delay > b.MaxElapsed-elapsed { // elapsed+delay > MaxElapsed, without overflow
		return TimeBudgetOut
	}
	return NoExit
}

// Fit counts how many waits of the schedule fit in a time budget, the way the
// seed's backoff.mjs does: keep taking the next wait while the total stays
// within budget, and stop at limit (the seed's limit is 1000, printed as
// "unlimited"). It returns the count and the total waited. The rule is the
// time budget's: a wait fits when the attempt after it starts within budget.
func (b Backoff) Fit(budget time.Duration, limit int) (retries int, elapsed time.Duration) {
	for retries < limit {
		next := b.Delay(retries + 1)
		if next > budget-elapsed { // elapsed+next > budget, without overflow
			break
		}
		retries++
		elapsed += next
	}
	return retries, elapsed
}
