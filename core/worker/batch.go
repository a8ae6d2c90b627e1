package worker

import (
	"context"
	"database/sql"

	"outboxlab/core/outbox"
)

// StepBatch is Step on the drain's fast path: one statement claims up to
// Batch due messages, the handler runs for each of them outside any
// transaction, and one transaction settles every attempt of the batch, with
// one statement per kind of transition whatever the batch's size:
// completions through CompleteBatchTx, each with its Outcome's Apply,
// failures through the retry policy (RetryAllTx, DeadLetterAllTx). The gates are Step's: AttemptCount moves
// at claim time and every transition is owner-checked; a refused one is a
// Refused event and does not undo the others.
//
// Unlike Step, StepBatch never moves the clock: when nothing is due it
// returns a Result with Claimed 0. Workers that share a clock or a file must
// not push time past each other's leases; when to wait is the caller's decision.
//
// An error from an Apply or from the database rolls the whole settlement
// back, and a context cancelled during a handler stops the step before it;
// either way the batch's claims stay leased and are claimed again once the
// lease ends.
func (w *Worker) StepBatch(ctx context.Context, b *outbox.Batcher) (Result, error) {
	now := w.Clock.Now()
	claims, err := b.Claim(ctx, w.ID, now, w.lease(), max(w.Batch, 1))
	if err != nil || len(claims) == 0 {
		return Result{}, err
	}
	res := Result{Claimed: len(claims), Events: make([]Event, len(claims))}
	ok := make([]outbox.Claim, 0, len(claims))
	okAt := make([]int, 0, len(claims)) // index of each ok claim in claims
	outcomes := make([]Outcome, 0, len(claims))
	for i, c := range claims {
		at := w.Clock.Now()
		res.Events[i] = Event{At: at, Worker: w.ID, MessageID: c.MessageID, Key: c.Key, Attempt: c.Attempt, MaxAttempts: c.MaxAttempts}
		out, herr := w.call(ctx, c, at)
		if herr != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			w.failed(&res.Events[i], c, herr)
			continue
		}
		res.Events[i].Kind, res.Events[i].Detail = Processed, out.Detail
		ok, okAt, outcomes = append(ok, c), append(okAt, i), append(outcomes, out)
	}
	err = b.Store().InTx(ctx, func(tx *sql.Tx) error {
		done, err := b.CompleteBatchTx(ctx, tx, ok, w.Clock.Now())
		if err != nil {
			return err
		}
		for j, c := range ok {
			ev := &res.Events[okAt[j]]
			if !done[j] {
				ev.Kind, ev.Detail = Refused, outbox.NotOwned("complete", c).Error()
				continue
			}
			if outcomes[j].Apply != nil {
				if err := outcomes[j].Apply(ctx, tx); err != nil {
					return err
				}
			}
		}
		return settleFailures(ctx, tx, b.Store(), claims, res.Events)
	})
	return res, err
}

// failed fills in a failed attempt's event from the retry policy's decision.
func (w *Worker) failed(ev *Event, c outbox.Claim, herr error) {
	ev.Detail = herr.Error()
	d := w.Policy.OnFailure(c.Attempt, c.MaxAttempts)
	if d.DeadLetter {
		ev.Kind = DeadLettered
		return
	}
	ev.Kind, ev.Delay = Retrying, d.Delay
	if d.Delay > 0 {
		ev.NextAttempt = ev.At.Add(d.Delay)
	}
}

// settleFailures writes the retry and dead-letter transitions of a batch in
// the settlement's transaction: one statement for the retries, one for the
// dead letters (and one for their audit lines). A refused one becomes a
// Refused event.
func settleFailures(ctx context.Context, tx *sql.Tx, store *outbox.Store, claims []outbox.Claim, events []Event) error {
	var retries, dead []outbox.Failure
	var retryAt, deadAt []int // index of each failure in claims
	for i, c := range claims {
		switch ev := &events[i]; ev.Kind {
		case Retrying:
			retries, retryAt = append(retries, outbox.Failure{Claim: c, At: ev.NextAttempt, Error: ev.Detail}), append(retryAt, i)
		case DeadLettered:
			dead, deadAt = append(dead, outbox.Failure{Claim: c, At: ev.At, Error: ev.Detail}), append(deadAt, i)
		}
	}
	refuse := func(what string, at []int, done []bool) {
		for j, i := range at {
			if !done[j] {
				events[i].Kind, events[i].Detail = Refused, outbox.NotOwned(what, claims[i]).Error()
			}
		}
	}
	if len(retries) > 0 {
		done, err := store.RetryAllTx(ctx, tx, retries)
		if err != nil {
			return err
		}
		refuse("retry", retryAt, done)
	}
	if len(dead) > 0 {
		done, err := store.DeadLetterAllTx(ctx, tx, dead)
		if err != nil {
			return err
		}
		refuse("dead-letter", deadAt, done)
	}
	return nil
}
