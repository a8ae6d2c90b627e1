package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// PaymentStatus is a payment's business state.
type PaymentStatus string

// The payment states. A payment whose provider outcome is not known yet is
// PendingConfirmation; only the provider's answer moves it to Paid or Failed.
const (
	PendingConfirmation PaymentStatus = "PendingConfirmation"
	Paid                PaymentStatus = "Paid"
	Failed              PaymentStatus = "Failed"
)

// Payment is one row of the Payments table.
type Payment struct {
	ID                    int64
	Key                   string
	AmountCents           int64
	Status                PaymentStatus
	ProviderTransactionID string
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// InsertPaymentTx writes a new payment in the caller's transaction.
func InsertPaymentTx(ctx context.Context, tx *sql.Tx, p Payment) (int64, error) {
	if p.Status == "" {
		p.Status = PendingConfirmation
	}
	var id int64
	err := tx.QueryRowContext(ctx,
		`INSERT INTO Payments (PaymentKey, AmountCents, Status, ProviderTransactionId, CreatedAtUtc, UpdatedAtUtc)
		 VALUES ($1, $2, $3, $4, $5, $5) RETURNING Id`,
		p.Key, p.AmountCents, string(p.Status), dialect.NullString(p.ProviderTransactionID), clock.ISO(p.CreatedAt)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert payment %s: %w", p.Key, err)
	}
	return id, nil
}

// ResolvePaymentTx records the provider's answer for a payment still pending
// confirmation. It reports whether a row changed: resolving twice is a no-op.
func ResolvePaymentTx(ctx context.Context, tx *sql.Tx, key string, status PaymentStatus, providerTxID string, now time.Time) (bool, error) {
	return changed("resolve payment " + key)(tx.ExecContext(ctx,
		`UPDATE Payments SET Status = $1, ProviderTransactionId = $2, UpdatedAtUtc = $3
		  WHERE PaymentKey = $4 AND Status = 'PendingConfirmation'`,
		string(status), dialect.NullString(providerTxID), clock.ISO(now), key))
}

// Payments returns every payment row in insertion order.
func (s *Store) Payments(ctx context.Context) ([]Payment, error) {
	rows, err := s.Query(ctx, s.DB(),
		`SELECT Id, PaymentKey, AmountCents, Status, ProviderTransactionId, CreatedAtUtc, UpdatedAtUtc
		   FROM Payments ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("list payments: %w", err)
	}
	defer rows.Close()
	var out []Payment
	for rows.Next() {
		var (
			p                Payment
			txID             sql.NullString
			created, updated sql.NullString
		)
		if err := rows.Scan(&p.ID, &p.Key, &p.AmountCents, &p.Status, &txID, &created, &updated); err != nil {
			return nil, fmt.Errorf("list payments: %w", err)
		}
		p.ProviderTransactionID = txID.String
		if p.CreatedAt, err = dialect.ParseNullTime(created); err != nil {
			return nil, err
		}
		if p.UpdatedAt, err = dialect.ParseNullTime(updated); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
