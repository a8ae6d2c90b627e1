package wassal

import (
	"context"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// stall has worker-a claim one more message, ask the provider, and stall
// before recording the answer.
func (d *day15) stall(ctx context.Context) error {
	now := d.clk.AdvanceTo(clock.Start.Add(stallActAt))
	claims, err := d.a.claim(ctx, now, 1)
	if err != nil {
		return err
	}
	if len(claims) == 0 {
		d.say(now, "", "worker-a polls again: nothing to claim")
		return d.flush(ctx)
	}
	d.took(d.a, claims, now)
	c := claims[0]
	a, err := d.a.prov.CheckStatus(ctx, c.Key, now)
	if err != nil {
		return err
	}
	d.stalled = &stalledWork{c: c, a: a, returns: now.Add(d.o.Stall)}
	d.say(now, c.Key, fmt.Sprintf("worker-a checks → %s → stalls %s before recording it (a GC pause, a frozen VM)",
		answerText(a), d.o.Stall))
	return d.flush(ctx)
}

// drain has worker-b take whatever it can until nothing is left to take or
// wait for, moving the clock to the next lease end when nothing is claimable.
// worker-a comes back from its stall when the clock reaches its return.
func (d *day15) drain(ctx context.Context) error {
	saidIdle := false
	for step := 0; ; step++ {
		if step > 10*d.o.Payments+20 {
			return fmt.Errorf("worker-b did not settle after %d steps", step)
		}
		now := d.clk.Now()
		claims, err := d.b.claim(ctx, now, d.o.Batch)
		if err != nil {
			return err
		}
		if len(claims) > 0 {
			d.took(d.b, claims, now)
			if err := d.flush(ctx); err != nil {
				return err
			}
			for _, c := range claims {
				if err := d.process(ctx, d.b, c, now); err != nil {
					return err
				}
			}
			continue
		}
		var leaseEnd time.Time
		var waiting bool
		if !d.b.naive {
			if leaseEnd, waiting, err = d.b.store.NextWakeup(ctx, now); err != nil {
				return err
			}
		}
		due := leaseEnd.Add(claim.WakeupSlack)
		if !waiting && !saidIdle {
			d.say(now, "", d.idleText())
			saidIdle = true
			if err := d.flush(ctx); err != nil {
				return err
			}
		}
		if d.stalled != nil && (!waiting || !d.stalled.returns.After(due)) {
			d.clk.AdvanceTo(d.stalled.returns)
			if err := d.wake(ctx); err != nil {
				return err
			}
			continue
		}
		if !waiting {
			return nil
		}
		d.say(now, "", fmt.Sprintf("worker-b: nothing due; a lease ends %s → clock to %s",
			clock.Stamp(leaseEnd), clock.Stamp(due)))
		if err := d.flush(ctx); err != nil {
			return err
		}
		d.clk.AdvanceTo(due)
	}
}

func (d *day15) idleText() string {
	if d.b.naive && d.run.crashed != "" {
		return fmt.Sprintf("worker-b: nothing Pending; %s stays Processing under worker-c, and no lease will ever hand it back", d.run.crashed)
	}
	return "worker-b: nothing left to claim or wait for"
}

// wake brings worker-a back from its stall to record the answer it holds.
func (d *day15) wake(ctx context.Context) error {
	s := d.stalled
	d.stalled = nil
	return d.record(ctx, d.a, s.c, s.a, d.clk.Now(), fmt.Sprintf("worker-a wakes after %s and records its answer", d.o.Stall))
}

// finish reads the final state: ledgers, notifications, schema.
func (d *day15) finish(ctx context.Context, store *outbox.Store) error {
	run := d.run
	var err error
	if run.ledger, err = ReadLedger(ctx, store, run.prov); err != nil {
		return err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return err
	}
	if run.notifications, err = readNotifications(ctx, store); err != nil {
		return err
	}
	var processing []string
	for _, m := range run.ledger.Messages {
		if m.Status == outbox.Processing {
			processing = append(processing, m.Key)
		}
	}
	d.say(run.ended, "", fmt.Sprintf("run ends: %s Processing (%s); %s PendingConfirmation (%s)",
		report.Plural(len(processing), "message"), keysText(processing), report.Plural(len(pendingKeys(run.ledger.Payments)), "payment"), keysText(pendingKeys(run.ledger.Payments))))
	return d.flush(ctx)
}

// notification is one row of PaymentNotifications.
type notification struct {
	id               int64
	key, outcome, by string
	at               string
}

func readNotifications(ctx context.Context, store *outbox.Store) ([]notification, error) {
	rows, err := store.Query(ctx, store.DB(), `SELECT Id, PaymentKey, Outcome, SentBy, SentAtUtc FROM PaymentNotifications ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read notifications: %w", err)
	}
	defer rows.Close()
	var out []notification
	for rows.Next() {
		var n notification
		if err := rows.Scan(&n.id, &n.key, &n.outcome, &n.by, &n.at); err != nil {
			return nil, fmt.Errorf("read notifications: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// rowOwner is who the outbox row names as its owner right now.
type rowOwner struct {
	worker string // empty unless the row is Processing
	token  int64
}

func (d *day15) owner(ctx context.Context, id int64) (rowOwner, error) {
	var o rowOwner
	token := "ClaimToken"
	if !d.a.store.Design().Has(token) {
		token = "0" // Day 14's design has no claim token
	}
	err := d.a.store.QueryRow(ctx, d.a.store.DB(),
		`SELECT CASE WHEN Status = 'Processing' THEN COALESCE(LockedBy, '') ELSE '' END, `+token+`
		   FROM OutboxMessages WHERE Id = ?`, id).Scan(&o.worker, &o.token)
	if err != nil {
		return o, fmt.Errorf("read the owner of outbox message %d: %w", id, err)
	}
	return o, nil
}

func (d *day15) release(workerID, key string) {
	hs := d.holders[key][:0]
	for _, h := range d.holders[key] {
		if h.Worker != workerID {
			hs = append(hs, h)
		}
	}
	d.holders[key] = hs
}

func (d *day15) keysOf(ctx context.Context, ids []int64) string {
	keys := make([]string, 0, len(ids))
	for _, id := range ids {
		var k string
		d.a.store.QueryRow(ctx, d.a.store.DB(), `SELECT MessageKey FROM OutboxMessages WHERE Id = ?`, id).Scan(&k)
		keys = append(keys, k)
	}
	return keysText(keys)
}

func claimKeys(cs []outbox.Claim) []string {
	keys := make([]string, len(cs))
	for i, c := range cs {
		keys[i] = c.Key
	}
	return keys
}

func appendOnce(keys []string, k string) []string {
	for _, have := range keys {
		if have == k {
			return keys
		}
	}
	return append(keys, k)
}
