package wassal

import (
	"context"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
)

// complete is a handler returning: its worker records the answer, unless
// (fenced) the row no longer carries its claim.
func (d *day18) complete(ctx context.Context, j *job18, now time.Time) error {
	d.jobs = slices.DeleteFunc(d.jobs, func(x *job18) bool { return x == j })
	if j.w == d.c {
		d.pollNow = true
	}
	row, err := d.row(ctx, j.c.MessageID)
	if err != nil {
		return err
	}
	late := row.Status != outbox.Processing || row.LockedBy != j.w.id || row.ClaimToken != j.c.Token
	refused, err := j.w.finish(ctx, j.c, j.a, now)
	if err != nil {
		return err
	}
	head := fmt.Sprintf("%s's handler returns after %s and records the answer", j.w.id, durationText(now.Sub(j.claimed)))
	if late {
		d.run.late = append(d.run.late, refusal{key: j.c.Key, worker: j.w.id, token: j.c.Token, ownerToken: row.ClaimToken, at: now})
		head += fmt.Sprintf(" — but the row is %s with token %d, not its %d", row.Status, row.ClaimToken, j.c.Token)
	}
	switch {
	case refused:
		d.say(now, j.c.Key, head+" → REFUSED: the transaction rolls back (no payment update, no notification)")
	case late:
		d.say(now, j.c.Key, head+" → completed by id anyway (--fencing=false): notified AGAIN, ProcessedAtUtc overwritten")
	default:
		status, _ := resolution(j.a)
		d.say(now, j.c.Key, fmt.Sprintf("%s → payment %s, notified → Processed", head, status))
	}
	return nil
}

// row reads one outbox row as it stands.
func (d *day18) row(ctx context.Context, id int64) (outbox.Message, error) {
	msgs, err := d.c.store.Messages(ctx)
	if err != nil {
		return outbox.Message{}, err
	}
	for _, m := range msgs {
		if m.ID == id {
			return m, nil
		}
	}
	return outbox.Message{}, fmt.Errorf("outbox message %d is gone", id)
}

// finish reads the final state: ledgers, notifications, schema.
func (d *day18) finish(ctx context.Context, store *outbox.Store, prov *provider.Provider) error {
	run := d.run
	var err error
	if run.ledger, err = ReadLedger(ctx, store, prov); err != nil {
		return err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return err
	}
	if run.notifications, err = readNotifications(ctx, store); err != nil {
		return err
	}
	processed := 0
	for _, m := range run.ledger.Messages {
		if m.Status == outbox.Processed {
			processed++
		}
	}
	d.say(run.ended, "", fmt.Sprintf("run ends: %s Processed, %s",
		report.Plural(processed, "message"), report.Plural(len(run.notifications), "notification")))
	return nil
}

// firstCalls are each key's provider status checks, in order.
func callsByKey(calls []provider.Call) map[string][]provider.Call {
	by := map[string][]provider.Call{}
	for _, c := range calls {
		if c.Op == provider.OpStatusCheck {
			by[c.Key] = append(by[c.Key], c)
		}
	}
	return by
}
