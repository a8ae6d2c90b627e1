package wassal

import (
	"context"
	"testing"

	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// Day 13 makes the pending work durable and leaves atomicity to Day 14: the
// payment and its re-check row are two writes. PostgreSQL says which
// transaction wrote a row (xmin), so the test reads it from the rows: with
// the reconciler off, PAY-003's payment and re-check row are never updated
// after they are written, and a payment written in the same transaction as
// its re-check row would share its xmin.
func TestSession13WritesThePaymentAndItsRecheckRowSeparately(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), pgtest.ServerDatabase(t), session13After)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close(context.Background(), false) })
	o := scenariotest.Bind(t, session13After, "--reconciler=false").(*session13Options)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	run, err := o.drive(ctx, env.Database, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := keysText(run.rowsAtCrash); got != "PAY-003, PAY-005" {
		t.Fatalf("re-check rows on disk after the crash: %s, want PAY-003, PAY-005", got)
	}
	store, err := Day(13).OpenExisting(ctx, env.Database)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, key := range []string{"PAY-003", "PAY-005"} {
		var payment, recheck string
		if err := store.DB().QueryRowContext(ctx, `SELECT xmin::text FROM Payments WHERE PaymentKey = $1`, key).Scan(&payment); err != nil {
			t.Fatal(err)
		}
		if err := store.DB().QueryRowContext(ctx, `SELECT xmin::text FROM Rechecks WHERE PaymentKey = $1`, key).Scan(&recheck); err != nil {
			t.Fatal(err)
		}
		if payment == recheck {
			t.Errorf("%s: the payment and its re-check row were written by one transaction (xmin %s): that is Day 14's lesson, not Day 13's", key, payment)
		}
	}
}
