package keyedlog

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
)

// Handler applies one record's business change inside tx, the transaction
// that also records the record as applied and moves the consumer past it.
// An error rolls all of it back and counts as a failed attempt.
type Handler interface {
	Apply(ctx context.Context, tx *sql.Tx, r Record, now time.Time) (detail string, err error)
}

// Containment is what the consumer does with a record that used up its attempts.
type Containment string

// The containments. The zero value is DeadLetterOnly.
const (
	// DeadLetterOnly sets the record aside; later records for its key flow on.
	DeadLetterOnly Containment = "dead-letter only"
	// PoisonCorrelation dead-letters it, remembers its correlation id and
	// parks every later record that carries that id.
	PoisonCorrelation Containment = "remember poisoned correlation ids"
	// BlockKey dead-letters it, blocks its key and parks every later record
	// with that key; the rest of the partition carries on.
	BlockKey Containment = "block the key"
	// PausePartition leaves it at the head of its partition and pauses the
	// partition: nothing behind it moves until Resume.
	PausePartition Containment = "pause the partition"
)

// Consumer reads the log one record at a time, round-robin over the partitions.
// A failed record is retried in place: its partition waits for the backoff.
// It claims a partition (PartitionQueue) before it reads the head record and
// moves it only while it still holds that claim.
type Consumer struct {
	Store *Store
	// Name is the consumer's identity in its claims ("consumer" when empty).
	Name string
	// Lease is how long a claim on a partition lasts (claim.DefaultLease when zero).
	Lease   time.Duration
	Clock   *clock.ScenarioClock
	Handler Handler
	// MaxAttempts is how many attempts a record gets before it is contained; 1 when below 1.
	MaxAttempts int
	// Backoff is the wait after each failed attempt (zero: retry at once).
	Backoff backoff.Backoff
	// Contain is what happens to a record that used up its attempts (DeadLetterOnly when empty).
	Contain Containment
	// DependsOn parks a record whose DependsOn sequence has not been applied.
	DependsOn bool
	// Idempotent skips a record whose MessageId was already applied.
	Idempotent bool
	// FailureEvent names the event published with a dead letter, in the same
	// transaction; nil publishes none.
	FailureEvent func(r Record) string
	// Permanent says whether a handler error is one no retry can cure (the
	// course's guard: catch (Exception ex) when (!IsTransient(ex))): such a
	// record is contained at once, whatever attempts it has left. nil treats
	// every error as transient: each record gets MaxAttempts.
	Permanent func(err error) bool

	next      int
	holdReads int
}

// HoldReads counts the store reads the consumer made to check a record against
// the poisoned ids or blocked keys: one per record it consumed.
func (c *Consumer) HoldReads() int { return c.holdReads }

// Result is what one Step did.
type Result struct {
	Events []Event
	Idle   bool // nothing due and nothing waiting on a backoff
}

var errHandlerFailed = errors.New("handler failed")

// Step consumes the head record of the next partition that has one due. When
// none is due it moves the clock to claim.WakeupSlack past the earliest backoff end,
// or reports Idle when nothing is left to wait for.
func (c *Consumer) Step(ctx context.Context) (Result, error) {
	parts, err := c.Store.Partitions(ctx)
	if err != nil {
		return Result{}, err
	}
	now := c.Clock.Now()
	var earliest time.Time
	for i := range parts {
		p := parts[(c.next+i)%len(parts)]
		if !p.Paused.IsZero() || p.Waiting == 0 {
			continue
		}
		due := p.NextAttempt
		if p.Owner != "" && !p.LeaseUntil.Before(now) && p.LeaseUntil.After(due) {
			due = p.LeaseUntil.Add(time.Millisecond) // another consumer's claim: free once its lease has ended
		}
		if due.After(now) {
			if earliest.IsZero() || due.Before(earliest) {
				earliest = due
			}
			continue
		}
		c.next = (c.next + i + 1) % len(parts)
		pc, ok, err := c.Store.ClaimPartition(ctx, p.Partition, claim.Request{Owner: c.name(), Now: now, Lease: c.Lease})
		if err != nil || !ok {
			return Result{}, err // taken meanwhile: the next step reads the partitions again
		}
		events, err := c.consume(ctx, pc, now)
		return Result{Events: events}, err
	}
	if earliest.IsZero() {
		return Result{Idle: true}, nil
	}
	to := claim.Advance(c.Clock, earliest)
	return Result{Events: []Event{{At: now, Kind: Advanced, NextAttempt: to,
		Detail: "next due " + clock.Stamp(earliest)}}}, nil
}

// Drain steps until the consumer is idle and returns every event, failing
// after limit steps.
func (c *Consumer) Drain(ctx context.Context, limit int) ([]Event, error) {
	var events []Event
	for range limit {
		res, err := c.Step(ctx)
		events = append(events, res.Events...)
		if err != nil || res.Idle {
			return events, err
		}
	}
	return events, fmt.Errorf("the consumer did not settle after %d steps", limit)
}

func (c *Consumer) maxAttempts() int { return max(c.MaxAttempts, 1) }

func (c *Consumer) name() string { return cmp.Or(c.Name, "consumer") }

// consume handles the head record of the partition p claims: skip a
// duplicate, park a held-back record, or apply it; a failed attempt is
// recorded in its own transaction. Every move of the partition is checked
// against the claim: one that is refused (claim.ErrNotOwner) rolls back the
// record's whole transaction, the business change included.
func (c *Consumer) consume(ctx context.Context, p PartitionClaim, now time.Time) ([]Event, error) {
	var ev Event
	var herr error
	err := c.Store.InTx(ctx, func(tx *sql.Tx) error {
		rec, ok, err := c.Store.recordAt(ctx, tx, p.Partition(), p.NextOffset)
		if err != nil || !ok {
			// Another consumer took the last record between our read of the
			// partitions and our claim: give the claim back, nothing to do.
			return errors.Join(err, c.Store.releaseClaimTx(ctx, tx, p))
		}
		ev = Event{At: now, Record: rec, Via: ViaLog, MaxAttempts: c.maxAttempts()}
		if c.Idempotent {
			done, err := c.Store.isApplied(ctx, tx, rec.MessageID)
			if err != nil || done {
				ev.Kind, ev.Detail = Duplicate, "MessageId "+rec.MessageID+" already applied"
				return errors.Join(err, c.Store.CommitOffsetTx(ctx, tx, p))
			}
		}
		reason, held, err := c.heldBack(ctx, tx, rec)
		if err != nil || held {
			ev.Kind, ev.Detail = Parked, reason
			return errors.Join(err, c.Store.parkTx(ctx, tx, rec, reason, now), c.Store.CommitOffsetTx(ctx, tx, p))
		}
		ev.Attempt = p.Attempt
		detail, err := c.call(ctx, tx, rec, now)
		if err != nil {
			herr = err
			return errHandlerFailed
		}
		ev.Kind, ev.Detail = Applied, detail
		return errors.Join(c.Store.recordAppliedTx(ctx, tx, rec, ViaLog, now), c.Store.CommitOffsetTx(ctx, tx, p))
	})
	if errors.Is(err, errHandlerFailed) {
		return c.fail(ctx, p, ev, herr)
	}
	if errors.Is(err, claim.ErrNotOwner) {
		return []Event{refused(ev, err)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("consume p%d:%d: %w", p.Partition(), p.NextOffset, err)
	}
	if ev.Kind == "" {
		return nil, nil // the claim was given back: no record at its head
	}
	return []Event{ev}, nil
}

// call runs the handler, turning a panic into a failed attempt.
func (c *Consumer) call(ctx context.Context, tx *sql.Tx, r Record, now time.Time) (detail string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("handler panicked: %v", v)
		}
	}()
	return c.Handler.Apply(ctx, tx, r, now)
}

// heldBack reports why rec must be parked instead of applied, if it must.
func (c *Consumer) heldBack(ctx context.Context, tx *sql.Tx, rec Record) (string, bool, error) {
	scope, value := ScopeCorrelation, rec.CorrelationID
	if c.Contain == BlockKey {
		scope, value = ScopeKey, rec.Key
	}
	if c.Contain == PoisonCorrelation || c.Contain == BlockKey {
		c.holdReads++
		h, ok, err := c.Store.liveHoldTx(ctx, tx, scope, value)
		if err != nil || ok {
			return h.Reason, ok, err
		}
	}
	if c.DependsOn && rec.DependsOn > 0 {
		done, err := c.Store.isSequenceApplied(ctx, tx, rec.CorrelationID, rec.DependsOn)
		if err != nil || !done {
			return fmt.Sprintf("depends on sequence %d, not applied", rec.DependsOn), true, err
		}
	}
	return "", false, nil
}

// fail records a failed attempt: a retry after the backoff, or, once the
// attempts are used up, the containment.
func (c *Consumer) fail(ctx context.Context, p PartitionClaim, ev Event, herr error) ([]Event, error) {
	ev.Detail = herr.Error()
	rec := ev.Record
	events := []Event{ev}
	err := c.Store.InTx(ctx, func(tx *sql.Tx) error {
		if ev.Attempt < c.maxAttempts() && !c.permanent(herr) {
			events[0].Kind, events[0].Delay = Retrying, c.Backoff.Delay(ev.Attempt)
			if events[0].Delay > 0 {
				events[0].NextAttempt = ev.At.Add(events[0].Delay)
			}
			return c.Store.RetryTx(ctx, tx, p, events[0].NextAttempt, ev.Detail)
		}
		if c.Contain == PausePartition {
			events[0].Kind = Paused
			reason := fmt.Sprintf("%s (%s, sequence %d) failed %d times: %s", rec.Place(), rec.Type, rec.Sequence, ev.Attempt, ev.Detail)
			return errors.Join(c.Store.PauseTx(ctx, tx, p, ev.Detail, ev.At),
				c.Store.holdTx(ctx, tx, ScopePartition, fmt.Sprint(p.Partition()), rec, reason, ev.At))
		}
		events[0].Kind = DeadLettered
		if err := errors.Join(c.Store.deadLetterTx(ctx, tx, rec, ev.Attempt, ev.Detail, ev.At), c.Store.CommitOffsetTx(ctx, tx, p)); err != nil {
			return err
		}
		if hold, ok := c.holdFor(rec); ok {
			reason := fmt.Sprintf("%s %s is %s: %s (%s, sequence %d) was dead-lettered",
				hold.label, hold.value, hold.state, rec.Place(), rec.Type, rec.Sequence)
			if err := c.Store.holdTx(ctx, tx, hold.scope, hold.value, rec, reason, ev.At); err != nil {
				return err
			}
			events = append(events, Event{At: ev.At, Kind: Held, Record: rec, Detail: reason})
		}
		if c.FailureEvent != nil {
			typ := c.FailureEvent(rec)
			if err := c.Store.publishTx(ctx, tx, typ, rec, ev.Detail, ev.At); err != nil {
				return err
			}
			events = append(events, Event{At: ev.At, Kind: Published, Record: rec, Detail: typ})
		}
		return nil
	})
	if errors.Is(err, claim.ErrNotOwner) {
		return []Event{refused(ev, err)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("record failed attempt at %s: %w", rec.Place(), err)
	}
	return events, nil
}

// refused is the event of a move the claim engine refused: ev's record
// stays where it was, for the partition's new owner.
func refused(ev Event, err error) Event {
	return Event{At: ev.At, Kind: Refused, Record: ev.Record, Via: ev.Via, Attempt: ev.Attempt, MaxAttempts: ev.MaxAttempts, Detail: err.Error()}
}

// permanent classifies a handler error with Permanent.
func (c *Consumer) permanent(err error) bool { return c.Permanent != nil && c.Permanent(err) }

type holdTarget struct{ scope, value, label, state string }

func (c *Consumer) holdFor(rec Record) (holdTarget, bool) {
	switch c.Contain {
	case PoisonCorrelation:
		return holdTarget{ScopeCorrelation, rec.CorrelationID, "correlation id", "poisoned"}, true
	case BlockKey:
		return holdTarget{ScopeKey, rec.Key, "key", "blocked"}, true
	}
	return holdTarget{}, false
}
