package keyedlog

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"outboxlab/core/clock"
)

// ReplayResult is what one replay by correlation id did.
type ReplayResult struct {
	Events     []Event
	Applied    int  // records the handler applied
	Duplicates int  // records skipped as already applied
	Failed     bool // a record failed again: the replay stopped and the holds stay
	Released   int  // holds released at the end
}

// Replay resends every dead-lettered and parked record of correlationID to
// the handler in sequence order, each in its own transaction, and then
// releases the holds on the id and its keys. A record that fails stops the
// replay and leaves the holds in place. Records already replayed are sent
// again: an idempotent consumer skips them, which is what makes a second
// replay a no-op.
func (c *Consumer) Replay(ctx context.Context, correlationID string) (ReplayResult, error) {
	var res ReplayResult
	now := c.Clock.Now()
	dead, err := c.Store.listSetAside(ctx, c.Store.DB(), QueueDeadLetter, correlationID)
	if err != nil {
		return res, err
	}
	parked, err := c.Store.listSetAside(ctx, c.Store.DB(), QueueParking, correlationID)
	if err != nil {
		return res, err
	}
	items := append(dead, parked...)
	slices.SortStableFunc(items, func(a, b SetAside) int {
		return cmp.Or(cmp.Compare(a.Record.Sequence, b.Record.Sequence), a.At.Compare(b.At))
	})
	var keys []string
	for _, it := range items {
		ev, err := c.replayOne(ctx, it, now)
		if err != nil {
			return res, err
		}
		res.Events = append(res.Events, ev)
		switch ev.Kind {
		case ReplayFailed:
			res.Failed = true
			return res, nil
		case Applied:
			res.Applied++
		case Duplicate:
			res.Duplicates++
		}
		if !slices.Contains(keys, it.Record.Key) {
			keys = append(keys, it.Record.Key)
		}
	}
	err = c.Store.InTx(ctx, func(tx *sql.Tx) error {
		targets := []Record{{CorrelationID: correlationID, Key: correlationID}}
		for _, k := range keys {
			targets = append(targets, Record{CorrelationID: correlationID, Key: k})
		}
		for i, t := range targets {
			scope, value := ScopeKey, t.Key
			if i == 0 {
				scope, value = ScopeCorrelation, correlationID
			}
			ok, err := c.Store.releaseTx(ctx, tx, scope, value, now)
			if err != nil {
				return err
			}
			if ok {
				res.Released++
				res.Events = append(res.Events, Event{At: now, Kind: Released, Record: t, Detail: scope + " " + value})
			}
		}
		return nil
	})
	return res, err
}

func (c *Consumer) replayOne(ctx context.Context, it SetAside, now time.Time) (Event, error) {
	ev := Event{At: now, Record: it.Record, Via: ViaReplay}
	var herr error
	err := c.Store.InTx(ctx, func(tx *sql.Tx) error {
		if c.Idempotent {
			done, err := c.Store.isApplied(ctx, tx, it.Record.MessageID)
			if err != nil || done {
				ev.Kind, ev.Detail = Duplicate, "MessageId "+it.Record.MessageID+" already applied"
				return errors.Join(err, c.Store.stampReplayedTx(ctx, tx, it, now))
			}
		}
		detail, err := c.call(ctx, tx, it.Record, now)
		if err != nil {
			herr = err
			return errHandlerFailed
		}
		ev.Kind, ev.Detail = Applied, detail
		return errors.Join(c.Store.recordAppliedTx(ctx, tx, it.Record, ViaReplay, now), c.Store.stampReplayedTx(ctx, tx, it, now))
	})
	if errors.Is(err, errHandlerFailed) {
		ev.Kind, ev.Detail = ReplayFailed, herr.Error()
		return ev, nil
	}
	if err != nil {
		return ev, fmt.Errorf("replay %s: %w", it.Record.Place(), err)
	}
	return ev, nil
}

func (s *Store) stampReplayedTx(ctx context.Context, tx *sql.Tx, it SetAside, at time.Time) error {
	table := "DeadLetters"
	if it.Queue == QueueParking {
		table = "ParkedMessages"
	}
	if _, err := s.Exec(ctx, tx, `UPDATE `+table+` SET ReplayedAtUtc = ? WHERE Id = ?`, clock.ISO(at), it.ID); err != nil {
		return fmt.Errorf("stamp %s row %d as replayed: %w", table, it.ID, err)
	}
	return nil
}

// Redrive is the naive way back: it copies every dead letter of correlationID
// (every one when empty) that was not redriven yet to the end of its
// partition, in dead-letter order, where it waits behind whatever came after it.
func (c *Consumer) Redrive(ctx context.Context, correlationID string) ([]Event, error) {
	now := c.Clock.Now()
	dead, err := c.Store.listSetAside(ctx, c.Store.DB(), QueueDeadLetter, correlationID)
	if err != nil {
		return nil, err
	}
	var events []Event
	for _, d := range dead {
		if !d.RedrivenAt.IsZero() {
			continue
		}
		err := c.Store.InTx(ctx, func(tx *sql.Tx) error {
			r := d.Record
			cp, err := c.Store.AppendTx(ctx, tx, NewRecord{Partition: r.Partition, MessageID: r.MessageID, Key: r.Key,
				CorrelationID: r.CorrelationID, Type: r.Type, Sequence: r.Sequence, DependsOn: r.DependsOn, Payload: r.Payload}, now, r.ID)
			if err != nil {
				return err
			}
			if _, err := c.Store.Exec(ctx, tx, `UPDATE DeadLetters SET RedrivenAtUtc = ? WHERE Id = ?`, clock.ISO(now), d.ID); err != nil {
				return fmt.Errorf("stamp dead letter %d as redriven: %w", d.ID, err)
			}
			events = append(events, Event{At: now, Kind: Redriven, Record: cp, Detail: "copy of " + r.Place()})
			return nil
		})
		if err != nil {
			return events, fmt.Errorf("redrive %s: %w", d.Record.Place(), err)
		}
	}
	return events, nil
}

// Resume lifts the pause of partition p: its head record gets fresh attempts
// and everything behind it moves again, in offset order.
func (c *Consumer) Resume(ctx context.Context, p int) (Event, error) {
	now := c.Clock.Now()
	err := c.Store.InTx(ctx, func(tx *sql.Tx) error {
		res, err := c.Store.Exec(ctx, tx,
			`UPDATE ConsumerPartitions SET Status = ?, PausedAtUtc = NULL, HeadAttempts = 0, NextAttemptUtc = NULL, LastError = NULL
			  WHERE Id = ? AND Status = ?`, PartitionActive, p, PartitionPaused)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, fmt.Errorf("partition %d is not paused", p))
		}
		_, err = c.Store.releaseTx(ctx, tx, ScopePartition, strconv.Itoa(p), now)
		return err
	})
	if err != nil {
		return Event{}, fmt.Errorf("resume partition %d: %w", p, err)
	}
	return Event{At: now, Kind: Resumed, Record: Record{Partition: p}, Detail: "partition " + strconv.Itoa(p)}, nil
}
