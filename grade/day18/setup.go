package day18

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/sched"
	"outboxlab/scenarios/wassal"
)

// late is a payment that arrives after the start, as the lab seeded it.
type late struct {
	key     string
	amount  int64
	payload string
	max     sql.NullInt64
	at      time.Duration
}

// arrivals reads the late payments the seed wrote and deletes them.
func (v variation) arrivals(ctx context.Context, db *sql.DB) ([]late, error) {
	var out []late
	for i, at := range v.Arrivals {
		l := late{key: wassal.PaymentKey(v.seeded() + 1 + i), at: at}
		err := db.QueryRowContext(ctx, `SELECT p.AmountCents, m.Payload, m.MaxAttempts FROM Payments p
			JOIN OutboxMessages m ON m.MessageKey = p.PaymentKey WHERE p.PaymentKey = $1`, l.key).
			Scan(&l.amount, &l.payload, &l.max)
		if err != nil {
			return nil, fmt.Errorf("read the seed of %s: %w", l.key, err)
		}
		for _, table := range []string{"OutboxMessages", "Payments"} {
			col := map[string]string{"OutboxMessages": "MessageKey", "Payments": "PaymentKey"}[table]
			if _, err := db.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+col+` = $1`, l.key); err != nil {
				return nil, fmt.Errorf("hold back %s: %w", l.key, err)
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// Hosting is how the lab runs Day 18's hosted workers: their handlers'
// times, the new work, the deploy's drain and the shutdown. It takes the
// late payments out of the seed (before the change log is installed): the
// lab inserts each at its arrival time, and its insert is in the log.
func (v variation) Hosting(ctx context.Context, b *dayspec.Bench) (*sched.Hosting, error) {
	lates, err := v.arrivals(ctx, b.Store.DB())
	if err != nil {
		return nil, err
	}
	h := &sched.Hosting{Handler: v.handler, DrainKey: v.DrainKey, DrainAfter: v.DrainAfter, Grace: v.Grace,
		Shutdown: clock.Start.Add(v.Shutdown)}
	for _, l := range lates {
		h.Inserts = append(h.Inserts, sched.Insert{At: clock.Start.Add(l.at),
			Do: func(ctx context.Context, now time.Time) (string, error) { return l.insert(ctx, b.Store, now) }})
	}
	return h, nil
}

// insert writes the late payment and its message, as the seed did, at now.
func (l late) insert(ctx context.Context, s *outbox.Store, now time.Time) (string, error) {
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{Key: l.key, AmountCents: l.amount,
			Status: outbox.PendingConfirmation, CreatedAt: now}); err != nil {
			return err
		}
		_, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: l.key, Type: wassal.ConfirmType,
			MaxAttempts: int(l.max.Int64), CreatedAt: now, Payload: l.payload})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("insert %s: %w", l.key, err)
	}
	return fmt.Sprintf("new work: payment %s and its message inserted; every wait returns", l.key), nil
}
