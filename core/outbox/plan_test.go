package outbox

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/internal/pgtest"
)

// TestClaimUsesThePartialIndex asserts that the claim walks
// IX_OutboxMessages_Claimable in order: no scan of the table, no sort. That
// is what keeps a claim as cheap with a million finished rows as with ten
// thousand.
func TestClaimUsesThePartialIndex(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, pgtest.Backends[0]) // EXPLAIN QUERY PLAN is SQLite's
	// Finished rows and live rows, so a planner tempted by the table has a reason to be.
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		for i := range 200 {
			if _, err := EnqueueTx(ctx, tx, NewMessage{Key: "K", Type: "T", CreatedAt: clock.Start}); err != nil {
				return err
			}
			if i%4 != 0 {
				if _, err := tx.ExecContext(ctx, `UPDATE OutboxMessages SET Status = 'Processed' WHERE Id = ?`, i+1); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := claim.Request{Owner: "w1", Now: clock.Start, Limit: 10}
	sel, selArgs := Messages.ClaimSelect(dialect.SQLite, r)
	batch, batchArgs := Messages.ClaimBatch(dialect.SQLite, s.claimColumns()+", CreatedAtUtc", r)
	for name, q := range map[string]struct {
		query string
		args  []any
	}{"claim read (ClaimTx)": {sel, selArgs}, "batch claim (Batcher)": {batch, batchArgs}} {
		t.Run(name, func(t *testing.T) {
			plan := queryPlan(t, s, q.query, q.args...)
			text := strings.Join(plan, "\n")
			if !strings.Contains(text, "SCAN OutboxMessages USING INDEX IX_OutboxMessages_Claimable") {
				t.Errorf("the claim does not walk IX_OutboxMessages_Claimable; plan:\n%s", text)
			}
			for _, step := range plan {
				if step == "SCAN OutboxMessages" || strings.Contains(step, "USING COVERING INDEX sqlite_autoindex") {
					t.Errorf("the claim scans the table: %q; plan:\n%s", step, text)
				}
				if strings.Contains(step, "TEMP B-TREE") {
					t.Errorf("the claim sorts instead of reading the index in order: %q; plan:\n%s", step, text)
				}
			}
		})
	}
}

func queryPlan(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.DB().QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
