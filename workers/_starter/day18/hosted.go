package main

import (
	"context"
	"errors"
	"fmt"
)

// Hosted is the Day 18 hosted worker (section 7.5 of the protocol page):
// Day 16's loop, with a handler that takes scenario time. It claims, asks
// the provider, runs the handler to its end and records. What it does not do
// yet is Day 18: the TODOs below.
type Hosted struct {
	Worker
}

// job is a claimed message and its lease, as this worker holds it.
type job struct {
	claimed
	claimedAtMS, leaseUntilMS int64
}

// Run serves the outbox until a drain, then says done.
func (w *Hosted) Run(ctx context.Context) error {
	for !w.lab.Draining() {
		batch, err := w.claim(ctx)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			if err := w.wait(ctx); err != nil {
				return err
			}
			continue
		}
		claimedAt := w.lab.Now()
		for _, m := range batch {
			j := &job{claimed: m, claimedAtMS: claimedAt, leaseUntilMS: claimedAt + w.cfg.LeaseMS}
			if err := w.handle(ctx, j); err != nil {
				return err
			}
		}
	}
	return w.lab.Done()
}

// wait waits for new work when nothing is claimable.
func (w *Hosted) wait(ctx context.Context) error {
	// TODO(Day 18) #5: a message whose worker died is claimable once its
	// lease ends: wait until the earliest lease end (w.nextWake) + 1 ms, or
	// with no time (0) only when no Pending or Processing row is left. Never
	// ask again sooner with nothing changed (OUTBOXLAB_POLL_MS).
	_, err := w.lab.Wait(0)
	return err
}

// handle asks the provider, runs the handler and records the answer.
func (w *Hosted) handle(ctx context.Context, j *job) error {
	status, err := w.lab.Status(j.key, j.id)
	if err != nil {
		return err
	}
	for {
		if w.lab.Draining() {
			// TODO(Day 18) #4: a drain: give the message back (w.release)
			// instead of leaving it Processing until its lease ends.
			return nil
		}
		// TODO(Day 18) #1: a handler may run longer than the lease. Ask the
		// handler to return at the renewal's due time (until_ms =
		// j.leaseUntilMS - RenewMarginMS); when that time has come, renew
		// (w.renew) to now + LeaseMS and go on; a refused renewal means the
		// claim is lost: return without recording.
		// TODO(Day 18) #3: never renew past j.claimedAtMS + RenewCapMS: once
		// the lease reaches the cap, run the handler to its end (until 0).
		finished, err := w.lab.Handler(j.key, j.id, 0)
		if err != nil {
			return err
		}
		if finished {
			break
		}
	}
	err = w.record(ctx, j.claimed, status)
	if errors.Is(err, errClaimLost) {
		return nil
	}
	return err
}

// renew extends the lease to untilMS; held is false when it was refused.
func (w *Hosted) renew(ctx context.Context, j *job, untilMS int64) (held bool, err error) {
	// TODO(Day 18) #2: one UPDATE in a transaction (w.db.InTx) setting
	// LockedUntilUtc = untilMS, guarded by ownerCheck (Id, Status
	// 'Processing', LockedBy, ClaimToken) AND LockedUntilUtc >= now: a
	// renewal never revives a claim that ended or that another worker holds.
	// Then keep j.leaseUntilMS = untilMS.
	return false, fmt.Errorf("renew message %d: not written yet (see TODO(Day 18) #2)", j.id)
}

// release gives a message back at a drain.
func (w *Hosted) release(ctx context.Context, j *job) error {
	// TODO(Day 18) #4: one UPDATE behind ownerCheck: Status = 'Pending',
	// LockedBy and LockedUntilUtc NULL, AttemptCount = AttemptCount - 1 (the
	// delivery never ran to an answer: a drain does not count an attempt).
	return fmt.Errorf("release message %d: not written yet (see TODO(Day 18) #4)", j.id)
}
