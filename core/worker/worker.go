// Package worker runs the outbox one synchronous Step at a time; the scenario
// decides how Steps interleave and when.
package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

// Handler does the work for one claimed message. It runs outside any
// transaction, since a provider call must never hold the write lock. An error
// is a failed attempt; the retry policy decides what follows.
type Handler interface {
	Handle(ctx context.Context, c outbox.Claim, now time.Time) (Outcome, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, c outbox.Claim, now time.Time) (Outcome, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, c outbox.Claim, now time.Time) (Outcome, error) {
	return f(ctx, c, now)
}

// Outcome is a successful attempt: what to say in the timeline, and the
// business change to commit in the same transaction as the Processed transition.
type Outcome struct {
	Detail string
	Apply  func(ctx context.Context, tx *sql.Tx) error // may be nil
}

// Worker claims and handles outbox messages.
type Worker struct {
	ID      string
	Store   *outbox.Store
	Clock   *clock.ScenarioClock
	Handler Handler
	Policy  backoff.Policy
	Lease   time.Duration // claim.DefaultLease when zero
	Batch   int           // messages per claim; 1 when zero
}

// EventKind names what happened in a Step; Refused and Advanced are the
// claim engine's own.
type EventKind = claim.EventKind

// The events a Step reports.
const (
	Processed    EventKind = "processed"
	Retrying     EventKind = "retrying"
	DeadLettered EventKind = "dead-lettered"
	Refused                = claim.Refused
	Advanced               = claim.Advanced
)

// Event is one line of a worker's timeline.
type Event struct {
	At          time.Time
	Worker      string
	Kind        EventKind
	MessageID   int64
	Key         string
	Attempt     int
	MaxAttempts int    // 0: no ceiling
	Detail      string // the handler's detail, or the error of a failed attempt
	Delay       time.Duration
	NextAttempt time.Time // retrying: when the message is due again (zero: at once); advanced: the new time
}

// Result is what one Step did.
type Result struct {
	Claimed int
	Events  []Event
	Idle    bool // nothing claimable and nothing waiting on a backoff or a lease
}

// Step claims up to Batch due messages and handles each of them. When none is
// due it moves the clock to claim.WakeupSlack past the earliest backoff or lease end
// instead, or reports Idle when there is nothing left to wait for.
func (w *Worker) Step(ctx context.Context) (Result, error) {
	now := w.Clock.Now()
	claims, err := w.Store.Claim(ctx, w.ID, now, w.lease(), max(w.Batch, 1))
	if err != nil {
		return Result{}, err
	}
	if len(claims) == 0 {
		return w.wait(ctx, now)
	}
	res := Result{Claimed: len(claims)}
	for _, c := range claims {
		ev, err := w.handle(ctx, c)
		if err != nil {
			return res, err
		}
		res.Events = append(res.Events, ev)
	}
	return res, nil
}

func (w *Worker) lease() time.Duration {
	if w.Lease > 0 {
		return w.Lease
	}
	return claim.DefaultLease
}

func (w *Worker) wait(ctx context.Context, now time.Time) (Result, error) {
	due, ok, err := w.Store.NextWakeup(ctx, now)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{Idle: true}, nil
	}
	to := claim.Advance(w.Clock, due)
	ev := Event{At: now, Worker: w.ID, Kind: Advanced, NextAttempt: to,
		Detail: "next due " + clock.Stamp(due)}
	return Result{Events: []Event{ev}}, nil
}

func (w *Worker) handle(ctx context.Context, c outbox.Claim) (Event, error) {
	now := w.Clock.Now()
	ev := Event{At: now, Worker: w.ID, MessageID: c.MessageID, Key: c.Key, Attempt: c.Attempt, MaxAttempts: c.MaxAttempts}
	out, herr := w.call(ctx, c, now)
	if herr != nil && ctx.Err() != nil {
		return ev, ctx.Err()
	}
	var err error
	switch {
	case herr == nil:
		ev.Kind, ev.Detail = Processed, out.Detail
		if out.Apply == nil {
			err = w.Store.Complete(ctx, c, now) // one statement, a transaction of its own
			break
		}
		err = w.Store.InTx(ctx, func(tx *sql.Tx) error {
			if err := out.Apply(ctx, tx); err != nil {
				return err
			}
			return w.Store.CompleteTx(ctx, tx, c, now)
		})
	default:
		ev.Detail = herr.Error()
		d := w.Policy.OnFailure(c.Attempt, c.MaxAttempts)
		if d.DeadLetter {
			ev.Kind = DeadLettered
			err = w.Store.DeadLetter(ctx, c, now, herr.Error())
			break
		}
		ev.Kind, ev.Delay = Retrying, d.Delay
		if d.Delay > 0 {
			ev.NextAttempt = now.Add(d.Delay)
		}
		err = w.Store.Retry(ctx, c, ev.NextAttempt, herr.Error())
	}
	if errors.Is(err, outbox.ErrNotOwner) {
		ev.Kind, ev.Detail = Refused, err.Error()
		return ev, nil
	}
	return ev, err
}

// call runs the handler, turning a panic into a failed attempt: one bad
// message must never crash the worker.
func (w *Worker) call(ctx context.Context, c outbox.Claim, now time.Time) (out Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	return w.Handler.Handle(ctx, c, now)
}
