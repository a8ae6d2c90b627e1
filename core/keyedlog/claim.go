package keyedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/claim"
)

// The statuses of a partition: an Active one may be claimed, a Paused one
// waits for Resume.
const (
	PartitionActive = "Active"
	PartitionPaused = "Paused"
)

// PartitionQueue is ConsumerPartitions as the claim engine sees it: a
// consumer claims a partition (ConsumerId, LeaseUntilUtc, ClaimToken) before
// it reads the head record, the claim counts an attempt of that record
// (HeadAttempts) and the backoff gate is the head's NextAttemptUtc. The
// claim leaves the status alone: a Paused partition is simply not live.
var PartitionQueue = &claim.Queue{
	Table: "ConsumerPartitions", Live: []string{PartitionActive},
	Owner: "ConsumerId", LeaseUntil: "LeaseUntilUtc", Token: "ClaimToken",
	Attempts: "HeadAttempts", Due: "NextAttemptUtc", Order: "Id",
}

// PartitionClaim is one consumer's hold on one partition: the claim.Owner
// (partition, consumer, token) every move of the partition must still match,
// and the head the claim found.
type PartitionClaim struct {
	claim.Owner
	NextOffset int64 // the head record's offset
	Attempt    int   // the head record's attempt, counted by this claim
}

// Partition is the partition number the claim holds.
func (c PartitionClaim) Partition() int { return int(c.ID) }

// ClaimPartition claims partition p for r.Owner until r.LeaseUntil(), if it
// is claimable now: active, due, and not held by a lease that has not ended.
// ok is false when it is not (another consumer holds it, or it is paused or
// waiting on a backoff).
func (s *Store) ClaimPartition(ctx context.Context, p int, r claim.Request) (c PartitionClaim, ok bool, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		query, args := PartitionQueue.ClaimRow(s.Dialect(), "Id, ConsumerId, ClaimToken, NextOffset, HeadAttempts", r, int64(p))
		err := tx.QueryRowContext(ctx, query, args...).Scan(&c.ID, &c.Owner.Owner, &c.Token, &c.NextOffset, &c.Attempt)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	if err != nil {
		return PartitionClaim{}, false, fmt.Errorf("claim partition %d for %s: %w", p, r.Owner, err)
	}
	return c, ok, nil
}

// settleTx moves the claimed partition (sets) and releases the claim, only
// while c still holds it; otherwise it returns claim.ErrNotOwner.
func (s *Store) settleTx(ctx context.Context, tx *sql.Tx, c PartitionClaim, what string, sets ...claim.Set) error {
	ok, err := s.SettleTx(ctx, tx, PartitionQueue, c.Owner, sets)
	if err == nil && !ok {
		err = claim.ErrNotOwner
	}
	if err != nil {
		return fmt.Errorf("%s partition %d (%s, token %d): %w", what, c.ID, c.Owner.Owner, c.Token, err)
	}
	return nil
}

// CommitOffsetTx moves c's partition past its head record, with fresh
// attempts for the next one, and releases the claim: claim.ErrNotOwner when
// c no longer holds the partition (its lease ended and another consumer
// claimed it), and then nothing moves.
func (s *Store) CommitOffsetTx(ctx context.Context, tx *sql.Tx, c PartitionClaim) error {
	return s.settleTx(ctx, tx, c, "commit the offset of",
		claim.Set{Column: "NextOffset", Value: c.NextOffset + 1}, claim.Set{Column: "HeadAttempts", Value: 0},
		claim.Set{Column: "NextAttemptUtc", Value: nil}, claim.Set{Column: "LastError", Value: nil})
}

// releaseClaimTx gives c's claim back without moving the partition: its head
// was consumed by another consumer before c was taken, so there is no
// record to count the attempt against.
func (s *Store) releaseClaimTx(ctx context.Context, tx *sql.Tx, c PartitionClaim) error {
	return s.settleTx(ctx, tx, c, "release", claim.Set{Column: "HeadAttempts", Value: 0})
}

// RetryTx keeps c's head record at the head after a failed attempt, due again
// at next (zero: at once), and releases the claim; claim.ErrNotOwner when c
// no longer holds the partition.
func (s *Store) RetryTx(ctx context.Context, tx *sql.Tx, c PartitionClaim, next time.Time, lastErr string) error {
	return s.settleTx(ctx, tx, c, "schedule a retry in",
		claim.Set{Column: "NextAttemptUtc", Value: next}, claim.Set{Column: "LastError", Value: lastErr})
}

// PauseTx pauses c's partition at at, its head record staying at the head,
// and releases the claim; claim.ErrNotOwner when c no longer holds it.
func (s *Store) PauseTx(ctx context.Context, tx *sql.Tx, c PartitionClaim, lastErr string, at time.Time) error {
	return s.settleTx(ctx, tx, c, "pause",
		claim.Set{Column: "Status", Value: PartitionPaused}, claim.Set{Column: "NextAttemptUtc", Value: nil},
		claim.Set{Column: "LastError", Value: lastErr}, claim.Set{Column: "PausedAtUtc", Value: at})
}
