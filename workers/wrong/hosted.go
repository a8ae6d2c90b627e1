package main

import (
	"context"
	"errors"
	"fmt"
)

// Hosted is Day 18's hosted worker (section 7.5), the reference's
// (workers/reference/go/hosted.go) with the mistakes of bugs18.go: Day 16's loop, with a
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
	if live && !bug("waits-only-for-new-work") {
		until = wake + 1
	}
	if bug("tight-poll") {
		until = w.lab.Now() + 1
	}
	return w.lab.Wait(until)
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
			if bug("drain-abandons") {
				return nil
			}
			return w.release(ctx, j)
		}
		capMS := j.claimedAtMS + w.cfg.RenewCapMS
		if bug("unbounded-renewal") {
			capMS = j.claimedAtMS + maxSleepMS
		}
		var due int64 // 0: no renewal left (the cap is reached)
		if j.leaseUntilMS < capMS {
			due = j.leaseUntilMS - w.cfg.RenewMarginMS
		}
		switch {
		case bug("no-renewal"):
			due = 0
		case bug("renew-after-expiry") && due > 0:
			due = j.leaseUntilMS + 1
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
		switch {
		case bug("renew-no-owner-check"):
			n, err = w.db.Exec(ctx, `UPDATE OutboxMessages SET LockedUntilUtc = $2
				 WHERE Id = $1 AND Status = 'Processing' AND LockedUntilUtc >= $3`, j.id, timeText(untilMS), now)
		case bug("renew-after-expiry"):
			n, err = w.db.Exec(ctx, `UPDATE OutboxMessages SET LockedUntilUtc = $4`+ownerCheck,
				j.id, w.cfg.WorkerID, j.token, timeText(untilMS))
		default:
			n, err = w.db.Exec(ctx, `UPDATE OutboxMessages SET LockedUntilUtc = $4`+ownerCheck+
				` AND LockedUntilUtc >= $5`, j.id, w.cfg.WorkerID, j.token, timeText(untilMS), now)
		}
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
	give := ", AttemptCount = AttemptCount - 1"
	if bug("drain-counts-attempt") {
		give = ""
	}
	return w.db.InTx(ctx, func() error {
		_, err := w.db.Exec(ctx, `UPDATE OutboxMessages
			   SET Status = 'Pending', LockedBy = NULL, LockedUntilUtc = NULL`+give+ownerCheck,
			j.id, w.cfg.WorkerID, j.token)
		if err != nil {
			return fmt.Errorf("release message %d: %w", j.id, err)
		}
		return nil
	})
}

// Draining reports whether an answer has announced a drain.
func (l *Lab) Draining() bool { return l.drainByMS > 0 }

// untilBody is a hosted call's body: until_ms when one is asked for.
func untilBody(body map[string]any, untilMS int64) map[string]any {
	if untilMS > 0 {
		body["until_ms"] = untilMS
	}
	return body
}

// Handler runs the message's handler: finished, or early at untilMS or a drain.
func (l *Lab) Handler(paymentKey string, messageID int64, untilMS int64) (finished bool, err error) {
	a, _, err := l.call("/v1/handler/run", untilBody(map[string]any{"payment_key": paymentKey, "message_id": messageID}, untilMS))
	return a.Finished, err
}

// Wait waits for new work, until untilMS (when not 0), or a drain.
func (l *Lab) Wait(untilMS int64) error {
	_, _, err := l.call("/v1/work/wait", untilBody(map[string]any{}, untilMS))
	return err
}
