// Package breaker is a consumer-wide circuit breaker on an injected clock:
// closed, open after K consecutive failures, half-open probe after a cooldown.
package breaker

import (
	"fmt"
	"time"
)

// State is where the breaker stands.
type State string

// The breaker states. Closed lets every call through; Open lets none
// through; HalfOpen lets one probe through, whose result closes or reopens it.
const (
	Closed   State = "closed"
	Open     State = "open"
	HalfOpen State = "half-open"
)

// Transition is one change of state, for the timeline.
type Transition struct {
	At       time.Time
	From, To State
	Reason   string
}

// Breaker trips after Threshold consecutive failures and stays open for
// Cooldown before it lets a probe through. It is meant for one synchronous
// consumer: in HalfOpen the caller makes one call and records it before
// asking again. The zero value is not usable; use New.
type Breaker struct {
	threshold   int
	cooldown    time.Duration
	state       State
	failures    int // consecutive failures while closed
	openedAt    time.Time
	transitions []Transition
}

// New returns a closed breaker that opens after threshold consecutive
// failures (at least 1) and probes cooldown after opening.
func New(threshold int, cooldown time.Duration) *Breaker {
	return &Breaker{threshold: max(threshold, 1), cooldown: cooldown, state: Closed}
}

// State returns the state at now. An open breaker whose cooldown has passed
// becomes half-open here, so the transition happens at the first look after
// the cooldown, never by itself.
func (b *Breaker) State(now time.Time) State {
	if b.state == Open && !now.Before(b.ReopensAt()) {
		b.move(now, HalfOpen, fmt.Sprintf("cooldown of %s over: one probe may go through", b.cooldown))
	}
	return b.state
}

// Allows reports whether a call may be made at now.
func (b *Breaker) Allows(now time.Time) bool { return b.State(now) != Open }

// ReopensAt is when an open breaker lets its probe through.
func (b *Breaker) ReopensAt() time.Time { return b.openedAt.Add(b.cooldown) }

// Record takes the result of a call made at now (after Allows said yes).
func (b *Breaker) Record(ok bool, now time.Time) {
	switch b.State(now) {
	case HalfOpen:
		if ok {
			b.failures = 0
			b.move(now, Closed, "the probe succeeded")
			return
		}
		b.openedAt = now
		b.move(now, Open, "the probe failed")
	case Closed:
		if ok {
			b.failures = 0
			return
		}
		b.failures++
		if b.failures >= b.threshold {
			b.openedAt = now
			b.move(now, Open, fmt.Sprintf("%d consecutive failures", b.failures))
		}
	}
}

// Transitions returns every change of state so far, in order.
func (b *Breaker) Transitions() []Transition { return append([]Transition(nil), b.transitions...) }

func (b *Breaker) move(now time.Time, to State, reason string) {
	b.transitions = append(b.transitions, Transition{At: now, From: b.state, To: to, Reason: reason})
	b.state = to
}
