package main

import (
	"context"
	"errors"
	"fmt"
)

// Hosted is Day 18's hosted worker (section 7.5): Day 16's loop, with a
// handler that takes scenario time. While it runs, the worker renews its
// lease RenewMarginMS before it ends, never past RenewCapMS from the claim;
// with nothing to claim it waits for new work; once an answer announces a
// drain it claims nothing more, releases what it holds without counting the
// attempt, and says done.
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
		for i, m := range batch {
			j := &job{claimed: m, claimedAtMS: claimedAt, leaseUntilMS: claimedAt + w.cfg.LeaseMS}
			if w.lab.Draining() {
				// Never started: give every one back.
				for _, rest := range batch[i:] {
					r := &job{claimed: rest}
					if err := w.release(ctx, r); err != nil {
						return err
					}
				}
				break
			}
			if err := w.handle(ctx, j); err != nil {
				return err
			}
		}
	}
	return w.lab.Done()
}

// wait waits for new work: until just past the next lease end or backoff
// gate, or with no time at all when no live row is left.
func (w *Hosted) wait(ctx context.Context) error {
	wake, live, err := w.nextWake(ctx)
	if err != nil {
		return err
	}
	var until int64
	if live {
		until = wake + 1
	}
	_, err = w.lab.Wait(until)
	return err
}

// handle asks the provider, runs the handler while renewing the lease, and
// records the answer, or releases the message when a drain comes first.
func (w *Hosted) handle(ctx context.Context, j *job) error {
	status, err := w.lab.Status(j.key, j.id)
	if err != nil {
		return err
	}
	for {
		if w.lab.Draining() {
			return w.release(ctx, j)
		}
		capMS := j.claimedAtMS + w.cfg.RenewCapMS
		var due int64 // 0: no renewal left (the cap is reached)
		if j.leaseUntilMS < capMS {
			due = j.leaseUntilMS - w.cfg.RenewMarginMS
		}
		if due > 0 && due <= w.lab.Now() {
			held, err := w.renew(ctx, j, min(w.lab.Now()+w.cfg.LeaseMS, capMS))
			if err != nil || !held {
				return err // lost: the new owner finishes it
			}
			continue
		}
		finished, err := w.lab.Handler(j.key, j.id, due)
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

// renew extends the lease to untilMS, only while the row is still this
// worker's under this claim and its lease has not ended: a renewal never
// revives a lost claim. held is false when it was refused.
func (w *Hosted) renew(ctx context.Context, j *job, untilMS int64) (held bool, err error) {
	now := timeText(w.lab.Now())
	var n int64
	err = w.db.InTx(ctx, func() error {
		n, err = w.db.Exec(ctx, `UPDATE OutboxMessages SET LockedUntilUtc = $4`+ownerCheck+
			` AND LockedUntilUtc >= $5`, j.id, w.cfg.WorkerID, j.token, timeText(untilMS), now)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("renew message %d: %w", j.id, err)
	}
	if n == 1 {
		j.leaseUntilMS = untilMS
	}
	return n == 1, nil
}

// release gives a message back at a drain: Pending, the lock cleared, and
// the attempt its claim counted given back (it never ran to an answer).
func (w *Hosted) release(ctx context.Context, j *job) error {
	return w.db.InTx(ctx, func() error {
		_, err := w.db.Exec(ctx, `UPDATE OutboxMessages
			   SET Status = 'Pending', LockedBy = NULL, LockedUntilUtc = NULL,
			       AttemptCount = AttemptCount - 1`+ownerCheck, j.id, w.cfg.WorkerID, j.token)
		if err != nil {
			return fmt.Errorf("release message %d: %w", j.id, err)
		}
		return nil
	})
}
