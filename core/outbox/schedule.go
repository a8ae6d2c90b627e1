package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
)

// ScheduleTx sets when a Pending message first becomes claimable: the claim
// passes it over until at. It is how a producer writes a reminder, a message
// meant for later, in the same transaction as the row it is about.
func ScheduleTx(ctx context.Context, tx *sql.Tx, id int64, at time.Time) error {
	res, err := tx.ExecContext(ctx,
		`UPDATE OutboxMessages SET NextAttemptUtc = $1 WHERE Id = $2 AND Status = 'Pending'`, clock.ISO(at), id)
	if err != nil {
		return fmt.Errorf("schedule outbox message %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("schedule outbox message %d: not a Pending message", id)
	}
	return nil
}

// CloseUnclaimedTx marks a Pending message Processed without a claim, because
// its producer finished the work itself (a reminder whose answer came in
// time). A message some worker has claimed is left alone; the result says
// whether the row changed.
func CloseUnclaimedTx(ctx context.Context, tx *sql.Tx, id int64, now time.Time) (bool, error) {
	return changed(fmt.Sprintf("close outbox message %d", id))(tx.ExecContext(ctx,
		`UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = $1, NextAttemptUtc = NULL
		  WHERE Id = $2 AND Status = 'Pending'`, clock.ISO(now), id))
}
