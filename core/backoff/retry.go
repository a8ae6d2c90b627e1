// Package backoff holds retry policies as pure values: backoff schedules and the
// decision taken when an attempt fails.
package backoff

import (
	"math"
	"time"
)

// Backoff is an exponential schedule: Base × 2^(attempt-1), never more than
// Cap when Cap is set. The zero Backoff retries immediately.
type Backoff struct {
	Base time.Duration // delay after the first failed attempt; 0 means no backoff
	Cap  time.Duration // upper bound on any delay; 0 means no cap
}

// Delay returns how long to wait after failed attempt number attempt (1-based).
// Attempts below 1 are treated as 1. The result saturates instead of
// overflowing for very large attempt numbers.
func (b Backoff) Delay(attempt int) time.Duration {
	if b.Base <= 0 {
		return 0
	}
	if attempt < 1 {
		attempt = 1
	}
	d := b.Base
	for i := 1; i < attempt; i++ {
		if d > math.MaxInt64/2 {
			d = math.MaxInt64
			break
		}
		d *= 2
	}
	if b.Cap > 0 && d > b.Cap {
		return b.Cap
	}
	return d
}

// Schedule returns the delays after each of the first n failed attempts.
func (b Backoff) Schedule(n int) []time.Duration {
	out := make([]time.Duration, 0, max(n, 0))
	for attempt := 1; attempt <= n; attempt++ {
		out = append(out, b.Delay(attempt))
	}
	return out
}

// Policy decides what happens to a message whose attempt just failed.
// The zero Policy is the naive one: retry at once, forever.
type Policy struct {
	Backoff Backoff
	// DeadLetter enables the exit: a message whose attempt count reaches its
	// MaxAttempts is parked instead of retried.
	DeadLetter bool
}

// Decision is the outcome of a failed attempt.
type Decision struct {
	DeadLetter bool          // park the message; no further attempts
	Delay      time.Duration // wait before the message is claimable again
}

// OnFailure decides after failed attempt number attempt of a message whose
// ceiling is maxAttempts (0 means the message has no ceiling).
func (p Policy) OnFailure(attempt, maxAttempts int) Decision {
	if p.DeadLetter && maxAttempts > 0 && attempt >= maxAttempts {
		return Decision{DeadLetter: true}
	}
	return Decision{Delay: p.Backoff.Delay(attempt)}
}
