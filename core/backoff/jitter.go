package backoff

import (
	"math"
	"time"

	"outboxlab/core/jsrand"
)

// Jitter is how a retry's wait is randomised, so that consumers that failed
// together do not retry together.
type Jitter int

// The jitter modes of the course's jitter experiment.
const (
	// NoJitter waits exactly Backoff.Delay(n).
	NoJitter Jitter = iota
	// FullJitter waits a random time between 0 and Backoff.Delay(n).
	FullJitter
	// DecorrelatedJitter waits a random time between Base and three times the
	// previous wait (Base before the first), never more than Cap.
	DecorrelatedJitter
)

// Jitters lists the modes in the order the course compares them.
var Jitters = []Jitter{NoJitter, FullJitter, DecorrelatedJitter}

// String is the mode's name as the course prints it.
func (j Jitter) String() string {
	switch j {
	case NoJitter:
		return "no jitter"
	case FullJitter:
		return "full jitter"
	case DecorrelatedJitter:
		return "decorrelated jitter"
	}
	return "unknown jitter"
}

// Waits returns one consumer's waits before its retries 1..n under jitter j,
// taking one draw from rand per wait (none for NoJitter), in order. It is the
// seed's jitter.mjs in milliseconds, with JavaScript's rounding:
//
//	full jitter:   Math.round(rand() * min(Cap, Base * 2 ** (n - 1)))
//	decorrelated:  previous = Math.min(Cap, Math.round(Base + rand() * (previous * 3 - Base)))
//
// Base and Cap are taken in whole milliseconds; a zero Cap means no cap.
func (b Backoff) Waits(j Jitter, n int, rand func() float64) []time.Duration {
	base := float64(b.Base.Milliseconds())
	limit := math.Inf(1)
	if b.Cap > 0 {
		limit = float64(b.Cap.Milliseconds())
	}
	out := make([]time.Duration, 0, max(n, 0))
	previous := base
	for attempt := 1; attempt <= n; attempt++ {
		var wait float64
		switch j {
		case FullJitter:
			wait = jsrand.Round(float64(rand() * b.millis(attempt)))
		case DecorrelatedJitter:
			// The conversion keeps the multiply and the add from being fused.
			previous = math.Min(limit, jsrand.Round(base+float64(rand()*(previous*3-base))))
			wait = previous
		default:
			wait = b.millis(attempt)
		}
		out = append(out, time.Duration(wait)*time.Millisecond)
	}
	return out
}

// millis is Delay(attempt) in whole milliseconds, as a JavaScript number.
func (b Backoff) millis(attempt int) float64 {
	return float64(b.Delay(attempt).Milliseconds())
}
