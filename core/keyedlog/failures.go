package keyedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
)

// FailureEvent is one row of FailureEvents: the news that a step failed.
type FailureEvent struct {
	ID            int64
	Type          string // e.g. PaymentFailed
	CorrelationID string
	LogRecordID   int64
	Reason        string
	PublishedAt   time.Time
	DeliveredAt   time.Time // zero until a listener took it
}

func (s *Store) publishTx(ctx context.Context, tx *sql.Tx, typ string, rec Record, reason string, at time.Time) error {
	_, err := s.Exec(ctx, tx,
		`INSERT INTO FailureEvents (Type, CorrelationId, LogRecordId, Reason, PublishedAtUtc) VALUES (?, ?, ?, ?, ?)`,
		typ, rec.CorrelationID, rec.ID, reason, clock.ISO(at))
	if err != nil {
		return fmt.Errorf("publish %s for %s: %w", typ, rec.Place(), err)
	}
	return nil
}

// FailureEvents returns every failure event in publication order.
func (s *Store) FailureEvents(ctx context.Context) ([]FailureEvent, error) {
	return s.listFailureEvents(ctx, s.DB(), "")
}

func (s *Store) listFailureEvents(ctx context.Context, q claim.Querier, where string) ([]FailureEvent, error) {
	out, err := claim.QueryAll(ctx, s.Store, q, func(row claim.Scanner) (FailureEvent, error) {
		var e FailureEvent
		var published string
		var delivered sql.NullString
		if err := row.Scan(&e.ID, &e.Type, &e.CorrelationID, &e.LogRecordID, &e.Reason, &published, &delivered); err != nil {
			return e, err
		}
		var err error
		if e.PublishedAt, err = parseTime(published); err != nil {
			return e, err
		}
		e.DeliveredAt, err = parseNullTime(delivered)
		return e, err
	}, `SELECT Id, Type, CorrelationId, LogRecordId, Reason, PublishedAtUtc, DeliveredAtUtc FROM FailureEvents `+where+` ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("list failure events: %w", err)
	}
	return out, nil
}

// Listener is a subscriber to failure events: it records or compensates
// inside tx, the transaction that marks the event delivered.
type Listener func(ctx context.Context, tx *sql.Tx, e FailureEvent, now time.Time) (detail string, err error)

// Delivery is one failure event handed to a listener.
type Delivery struct {
	Event  FailureEvent
	At     time.Time
	Detail string
}

// Deliver hands every undelivered failure event to listen, oldest first, and
// marks each delivered in the listener's transaction: an event is taken once.
func (s *Store) Deliver(ctx context.Context, now time.Time, listen Listener) ([]Delivery, error) {
	pending, err := s.listFailureEvents(ctx, s.DB(), "WHERE DeliveredAtUtc IS NULL")
	if err != nil {
		return nil, err
	}
	var out []Delivery
	for _, e := range pending {
		err := s.InTx(ctx, func(tx *sql.Tx) error {
			detail, err := listen(ctx, tx, e, now)
			if err != nil {
				return err
			}
			res, err := s.Exec(ctx, tx,
				`UPDATE FailureEvents SET DeliveredAtUtc = ? WHERE Id = ? AND DeliveredAtUtc IS NULL`, clock.ISO(now), e.ID)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return errors.Join(err, fmt.Errorf("event %d was delivered meanwhile", e.ID))
			}
			e.DeliveredAt = now
			out = append(out, Delivery{Event: e, At: now, Detail: detail})
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("deliver failure event %d: %w", e.ID, err)
		}
	}
	return out, nil
}
