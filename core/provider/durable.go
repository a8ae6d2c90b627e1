package provider

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// DurableSchema is the durable provider's ledger: every delivery, and every
// effect. ProviderEffects has no unique key on purpose: "one effect per
// idempotency key" is what deduplication achieves and what tests measure, not
// something the schema makes impossible.
//
//go:embed durable.sql
var DurableSchema string

// Delivery results, as the ledger records them.
const (
	DeliveryEffect    = "effect"    // first delivery of a key: the effect happened
	DeliveryDuplicate = "duplicate" // the key already had an effect: the first receipt is returned
	DeliveryFailed    = "failed"    // the provider was unavailable: no effect
)

// Durable is a payment provider that keeps its ledger in a database (a
// SQLite file or a PostgreSQL schema), so that it
// outlives the processes that call it: a worker killed after the charge
// committed and before its outbox row did leaves the charge behind, exactly
// as a real provider would. It deduplicates charges by idempotency key.
type Durable struct {
	store *claim.Store
	db    *sql.DB
	// Deduplicate returns the first receipt for a key already charged instead
	// of charging again. OpenDurable sets it; turning it off shows what a
	// provider without idempotency keys does under redelivery.
	Deduplicate bool
	// Fails, when set, makes every charge of the keys it accepts fail with
	// ErrUnavailable (recorded as a failed delivery).
	Fails func(key string) bool
}

// Receipt is a successful charge.
type Receipt struct {
	TransactionID string
	Duplicate     bool // the key had been charged before; nothing new happened
}

// OpenDurable opens (creating if needed) the provider's ledger in db, a
// SQLite file or a PostgreSQL run schema (see claim.Open), with
// deduplication on.
func OpenDurable(ctx context.Context, db dialect.Database) (*Durable, error) {
	s, err := claim.Open(ctx, db, dialect.SchemaVersion, DurableSchema)
	if err != nil {
		return nil, fmt.Errorf("open provider ledger: %w", err)
	}
	return &Durable{store: s, db: s.DB(), Deduplicate: true}, nil
}

// Close closes the ledger.
func (d *Durable) Close() error { return d.db.Close() }

// Charge delivers one charge for idempotencyKey from caller at time at, in
// one transaction of the provider's own: the delivery is recorded whatever
// happens, the effect at most once per key while Deduplicate is on.
func (d *Durable) Charge(ctx context.Context, idempotencyKey, caller string, at time.Time) (Receipt, error) {
	var (
		rec    Receipt
		failed bool
	)
	err := d.store.InTx(ctx, func(tx *sql.Tx) error {
		rec, failed = Receipt{}, d.Fails != nil && d.Fails(idempotencyKey)
		if failed {
			_, err := insertDelivery(ctx, tx, idempotencyKey, caller, at, DeliveryFailed)
			return err
		}
		if d.Deduplicate {
			if err := d.lockKey(ctx, tx, idempotencyKey); err != nil {
				return err
			}
			err := tx.QueryRowContext(ctx,
				`SELECT TransactionId FROM ProviderEffects WHERE IdempotencyKey = $1 ORDER BY Id LIMIT 1`,
				idempotencyKey).Scan(&rec.TransactionID)
			if err == nil {
				rec.Duplicate = true
				_, err = insertDelivery(ctx, tx, idempotencyKey, caller, at, DeliveryDuplicate)
				return err
			}
			if err != sql.ErrNoRows {
				return fmt.Errorf("look up charge %s: %w", idempotencyKey, err)
			}
		}
		id, err := insertDelivery(ctx, tx, idempotencyKey, caller, at, DeliveryEffect)
		if err != nil {
			return err
		}
		rec.TransactionID = fmt.Sprintf("PRV-TX-%06d", id)
		_, err = tx.ExecContext(ctx,
			`INSERT INTO ProviderEffects (IdempotencyKey, TransactionId, DeliveryId, AtUtc) VALUES ($1, $2, $3, $4)`,
			idempotencyKey, rec.TransactionID, id, clock.ISO(at))
		if err != nil {
			return fmt.Errorf("record charge %s: %w", idempotencyKey, err)
		}
		return nil
	})
	if err != nil {
		return Receipt{}, err
	}
	if failed {
		return Receipt{}, fmt.Errorf("charge %s failed: %w (503)", idempotencyKey, ErrUnavailable)
	}
	return rec, nil
}

// lockKey makes the charges of one key take turns (dialect.Dialect.LockKey):
// where transactions do not already (PostgreSQL's READ COMMITTED), two
// charges of a key could both find no effect and both charge. The lock ends
// with the transaction.
func (d *Durable) lockKey(ctx context.Context, tx *sql.Tx, key string) error {
	if err := d.store.Dialect().LockKey(ctx, tx, key); err != nil {
		return fmt.Errorf("look up charge %s: %w", key, err)
	}
	return nil
}

func insertDelivery(ctx context.Context, tx *sql.Tx, key, caller string, at time.Time, result string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx,
		`INSERT INTO ProviderDeliveries (IdempotencyKey, Caller, AtUtc, Result) VALUES ($1, $2, $3, $4) RETURNING Id`,
		key, caller, clock.ISO(at), result).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record delivery of %s: %w", key, err)
	}
	return id, nil
}

// DurableStats sums up a durable provider's ledger.
type DurableStats struct {
	Deliveries          int // every charge delivered, whatever its result
	FailedDeliveries    int
	DuplicateDeliveries int // deliveries of a key already charged, answered from the first receipt
	Effects             int // charges that happened
	KeysCharged         int // distinct keys with at least one effect
	DuplicateEffects    int // Effects - KeysCharged: a key charged twice counts one
}

// Stats reads the ledger's totals.
func (d *Durable) Stats(ctx context.Context) (DurableStats, error) {
	var s DurableStats
	err := d.db.QueryRowContext(ctx,
		`SELECT COUNT(*),
		        COUNT(*) FILTER (WHERE Result = 'failed'),
		        COUNT(*) FILTER (WHERE Result = 'duplicate')
		   FROM ProviderDeliveries`).Scan(&s.Deliveries, &s.FailedDeliveries, &s.DuplicateDeliveries)
	if err != nil {
		return s, fmt.Errorf("read provider deliveries: %w", err)
	}
	err = d.db.QueryRowContext(ctx,
		`SELECT COUNT(*), COUNT(DISTINCT IdempotencyKey) FROM ProviderEffects`).Scan(&s.Effects, &s.KeysCharged)
	if err != nil {
		return s, fmt.Errorf("read provider effects: %w", err)
	}
	s.DuplicateEffects = s.Effects - s.KeysCharged
	return s, nil
}

// Effects returns, per idempotency key charged, the transaction ids of its
// effects in the order they happened (more than one only without deduplication).
func (d *Durable) Effects(ctx context.Context) (map[string][]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT IdempotencyKey, TransactionId FROM ProviderEffects ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read provider effects: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var key, id string
		if err := rows.Scan(&key, &id); err != nil {
			return nil, fmt.Errorf("read provider effects: %w", err)
		}
		out[key] = append(out[key], id)
	}
	return out, rows.Err()
}

// DB returns the ledger's handle, for integrity checks and ad-hoc queries.
func (d *Durable) DB() *sql.DB { return d.db }
