package governance

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/sqlitedb"
)

// live is every status a drain may still select.
const live = `Status IN ('Pending', 'Deferred', 'Failed')`

// due is the plain store's selection: live and past its next retry time.
// It never looks at MaxRetryCount: the legacy column suppresses nothing.
const due = live + ` AND (NextRetryAtUtc IS NULL OR NextRetryAtUtc <= :now)`

// claimable adds the claim gate: nobody holds the entry, or the lease has expired.
const claimable = due + ` AND (ClaimOwner IS NULL OR ClaimLeaseUntilUtc < :now)`

// setTransition is what both modes write. Every transition releases the
// claim, so no row is left stranded under an expired or misleading lease.
const setTransition = `Status = :to, RetryCount = :retry, NextRetryAtUtc = :next,
	LastErrorCode = COALESCE(:ecode, LastErrorCode), LastErrorMessage = COALESCE(:emsg, LastErrorMessage),
	ReasonCode = :rcode, ReasonMessage = :rmsg,
	DeliveredAtUtc = CASE WHEN :to = 'Delivered' THEN :at ELSE DeliveredAtUtc END,
	DeadLetteredAtUtc = CASE WHEN :to = 'DeadLettered' THEN :at ELSE DeadLetteredAtUtc END,
	ClaimOwner = NULL, ClaimLeaseUntilUtc = NULL, UpdatedAtUtc = :at`

func transitionArgs(t Transition) []any {
	return []any{sql.Named("to", string(t.To)), sql.Named("retry", t.RetryCount), sql.Named("next", sqlitedb.NullTime(t.NextRetryAt)),
		sql.Named("ecode", sqlitedb.NullString(t.ErrorCode)), sql.Named("emsg", sqlitedb.NullString(t.ErrorMessage)),
		sql.Named("rcode", sqlitedb.NullString(t.ReasonCode)), sql.Named("rmsg", sqlitedb.NullString(t.ReasonMessage)),
		sql.Named("at", clock.ISO(t.At))}
}

// ErrNotOwner is returned by a claim-checked transition whose writer no longer
// owns the claim: the lease was taken over, or the entry is already terminal.
var ErrNotOwner = errors.New("claim no longer owned")

// Due returns up to limit entries the plain store drain may emit at now, oldest first.
func (s *Store) Due(ctx context.Context, now time.Time, limit int) ([]Entry, error) {
	out, err := queryEntries(ctx, s.db, `WHERE `+due+` ORDER BY CreatedAtUtc, Id LIMIT :limit`,
		sql.Named("now", clock.ISO(now)), sql.Named("limit", limit))
	if err != nil {
		return nil, fmt.Errorf("select due governance entries: %w", err)
	}
	return out, nil
}

// ApplyTx persists t on entry id, keyed by Id alone: the plain store's write,
// which assumes a single drainer and checks nothing else.
func (s *Store) ApplyTx(ctx context.Context, tx *sql.Tx, id int64, actor string, t Transition) error {
	from, err := statusTx(ctx, tx, id)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE GovernanceOutboxEntries SET `+setTransition+` WHERE Id = :id`,
		append(transitionArgs(t), sql.Named("id", id))...); err != nil {
		return fmt.Errorf("persist %s transition of governance entry %d: %w", t.To, id, err)
	}
	return logTransitionTx(ctx, tx, id, actor, 0, from, t, "applied")
}

// Apply is ApplyTx in a transaction of its own.
func (s *Store) Apply(ctx context.Context, id int64, actor string, t Transition) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.ApplyTx(ctx, tx, id, actor, t) })
}

// Claim is a drainer's ownership of one entry; Entry is the row as the claim left it.
type Claim struct {
	Entry      Entry
	Owner      string
	Token      int64
	LeaseUntil time.Time
}

// ClaimTx claims up to limit claimable entries, oldest first, for owner until
// now+lease, incrementing each one's ClaimToken. Call it in a BEGIN IMMEDIATE
// transaction (every Store transaction is one) so no two claims interleave.
func (s *Store) ClaimTx(ctx context.Context, tx *sql.Tx, owner string, now time.Time, lease time.Duration, limit int) ([]Claim, error) {
	nowArg := sql.Named("now", clock.ISO(now))
	candidates, err := queryEntries(ctx, tx, `WHERE `+claimable+` ORDER BY CreatedAtUtc, Id LIMIT :limit`, nowArg, sql.Named("limit", limit))
	if err != nil {
		return nil, fmt.Errorf("claim governance entries: %w", err)
	}
	until := now.Add(lease)
	claims := make([]Claim, 0, len(candidates))
	for _, c := range candidates {
		e, err := scanEntry(tx.QueryRowContext(ctx,
			`UPDATE GovernanceOutboxEntries SET ClaimOwner = :owner, ClaimLeaseUntilUtc = :lease, ClaimToken = ClaimToken + 1
			  WHERE Id = :id AND `+claimable+` RETURNING `+entryColumns,
			sql.Named("owner", owner), sql.Named("lease", clock.ISO(until)), sql.Named("id", c.ID), nowArg))
		if err != nil {
			return nil, fmt.Errorf("claim governance entry %d: %w", c.ID, err)
		}
		claims = append(claims, Claim{Entry: e, Owner: owner, Token: e.ClaimToken, LeaseUntil: until})
	}
	return claims, nil
}

// Claim claims up to limit entries in a transaction of its own.
func (s *Store) Claim(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) (claims []Claim, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		claims, err = s.ClaimTx(ctx, tx, owner, now, lease, limit)
		return err
	})
	return claims, err
}

// ApplyClaimedTx persists t only while the row is live and still carries c's
// owner and token. A refused write is logged as refused in tx, counted, and
// reported as ErrNotOwner; commit tx to keep the record of the refusal.
func (s *Store) ApplyClaimedTx(ctx context.Context, tx *sql.Tx, c Claim, t Transition) error {
	id := c.Entry.ID
	from, err := statusTx(ctx, tx, id)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE GovernanceOutboxEntries SET `+setTransition+`
		WHERE Id = :id AND ClaimOwner = :owner AND ClaimToken = :token AND `+live,
		append(transitionArgs(t), sql.Named("id", id), sql.Named("owner", c.Owner), sql.Named("token", c.Token))...)
	if err != nil {
		return fmt.Errorf("persist %s transition of governance entry %d: %w", t.To, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("persist %s transition of governance entry %d: %w", t.To, id, err)
	}
	if n == 1 {
		return logTransitionTx(ctx, tx, id, c.Owner, c.Token, from, t, "applied")
	}
	s.refused.Add(1)
	if err := logTransitionTx(ctx, tx, id, c.Owner, c.Token, from, t, "refused"); err != nil {
		return err
	}
	return fmt.Errorf("persist %s transition of governance entry %d (owner %s, token %d): %w", t.To, id, c.Owner, c.Token, ErrNotOwner)
}

// ApplyClaimed is ApplyClaimedTx in a transaction of its own; a refusal is
// committed to the transition log before ErrNotOwner is returned.
func (s *Store) ApplyClaimed(ctx context.Context, c Claim, t Transition) error {
	var refused error
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		err := s.ApplyClaimedTx(ctx, tx, c, t)
		if errors.Is(err, ErrNotOwner) {
			refused = err
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return refused
}

// NextDue returns the earliest moment after now at which an entry that is not
// due now becomes due: a retry time passing or a lease expiring. ok is false
// when no live entry is waiting on either.
func (s *Store) NextDue(ctx context.Context, now time.Time) (at time.Time, ok bool, err error) {
	var next sql.NullString
	err = s.db.QueryRowContext(ctx,
		`SELECT MIN(t) FROM (
		   SELECT NextRetryAtUtc AS t FROM GovernanceOutboxEntries
		    WHERE `+live+` AND (ClaimOwner IS NULL OR ClaimLeaseUntilUtc < :now) AND NextRetryAtUtc > :now
		   UNION ALL
		   SELECT MAX(ClaimLeaseUntilUtc, COALESCE(NextRetryAtUtc, '')) FROM GovernanceOutboxEntries
		    WHERE `+live+` AND ClaimOwner IS NOT NULL AND ClaimLeaseUntilUtc >= :now)`,
		sql.Named("now", clock.ISO(now))).Scan(&next)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("find next due governance entry: %w", err)
	}
	at, err = sqlitedb.ParseNullTime(next)
	return at, next.Valid, err
}

func statusTx(ctx context.Context, tx *sql.Tx, id int64) (Status, error) {
	var st Status
	if err := tx.QueryRowContext(ctx, `SELECT Status FROM GovernanceOutboxEntries WHERE Id = ?`, id).Scan(&st); err != nil {
		return "", fmt.Errorf("read status of governance entry %d: %w", id, err)
	}
	return st, nil
}
