package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/claim"
)

// A design without a lease (Day 14's) has no LockedUntilUtc and no
// ClaimToken: its relay takes messages as Day 14 does, one worker at a time,
// reading the oldest Pending rows and marking each Processing under its name
// (LockedBy) with the attempt counted, in the caller's transaction. Its
// transitions check the owner by name and status alone. Nothing hands a
// message back if its worker dies: that is Day 15's lease.

// leased reports whether the store's design has the lease and fencing token.
func (s *Store) leased() bool { return s.design.Has("LockedUntilUtc") && s.design.Has("ClaimToken") }

// claimUnleasedTx is ClaimTx on a design without a lease.
func (s *Store) claimUnleasedTx(ctx context.Context, tx *sql.Tx, worker string, limit int) ([]Claim, error) {
	if err := s.design.require("claim outbox message", "LockedBy", "AttemptCount"); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx,
		`SELECT Id FROM OutboxMessages WHERE Status = 'Pending' ORDER BY CreatedAtUtc, Id LIMIT $1`, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("claim outbox message: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("claim outbox message: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim outbox message: %w", err)
	}
	claims := make([]Claim, 0, len(ids))
	for _, id := range ids {
		c := Claim{Worker: worker}
		err := scanClaim(tx.QueryRowContext(ctx,
			`UPDATE OutboxMessages SET Status = 'Processing', LockedBy = $1, AttemptCount = AttemptCount + 1
			  WHERE Id = $2 AND Status = 'Pending'
			RETURNING `+s.claimColumns(), worker, id), &c)
		if err != nil {
			return nil, fmt.Errorf("claim outbox message %d: %w", id, err)
		}
		claims = append(claims, c)
	}
	return claims, nil
}

// settleUnleasedTx is an owner-checked transition on a design without a
// lease: it applies while the row is still Processing under c.Worker, and
// clears the owner. It reports whether it applied.
func (s *Store) settleUnleasedTx(ctx context.Context, on claim.Querier, c Claim, sets []claim.Set) (bool, error) {
	var set []string
	var args []any
	for _, st := range append(sets, claim.Set{Column: "LockedBy"}) {
		args = append(args, st.Value)
		if t, ok := st.Value.(time.Time); ok {
			args[len(args)-1] = s.Dialect().Time(t)
		}
		set = append(set, st.Column+" = $"+strconv.Itoa(len(args)))
	}
	n := len(args)
	args = append(args, c.MessageID, c.Worker)
	return changed("settle outbox message")(on.ExecContext(ctx,
		`UPDATE OutboxMessages SET `+strings.Join(set, ", ")+
			` WHERE Id = $`+strconv.Itoa(n+1)+` AND LockedBy = $`+strconv.Itoa(n+2)+` AND Status = 'Processing'`, args...))
}
