package emission

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// live is every status a drain may still select.
const live = `Status IN ('Pending', 'Deferred', 'Failed', 'RetryableFailure')`

// due is the plain store's selection: live and past its next retry time.
// It never looks at MaxRetryCount: the legacy column suppresses nothing.
const due = live + ` AND (NextRetryAtUtc IS NULL OR NextRetryAtUtc <= :now)`

// transitionSets is what both modes write. Both release the claim (the
// engine adds ClaimOwner and ClaimLeaseUntilUtc = NULL), so no row is left
// stranded under an expired or misleading lease. An error column is written
// only by a failure, a delivery or dead-letter stamp only by that transition.
func transitionSets(t Transition) []claim.Set {
	sets := []claim.Set{{Column: "Status", Value: string(t.To)}, {Column: "RetryCount", Value: t.RetryCount},
		{Column: "NextRetryAtUtc", Value: t.NextRetryAt},
		{Column: "ReasonCode", Value: dialect.NullString(t.ReasonCode)},
		{Column: "ReasonMessage", Value: dialect.NullString(t.ReasonMessage)},
		{Column: "UpdatedAtUtc", Value: t.At}}
	if t.ErrorCode != "" {
		sets = append(sets, claim.Set{Column: "LastErrorCode", Value: t.ErrorCode})
	}
	if t.ErrorMessage != "" {
		sets = append(sets, claim.Set{Column: "LastErrorMessage", Value: t.ErrorMessage})
	}
	switch t.To {
	case Delivered:
		sets = append(sets, claim.Set{Column: "DeliveredAtUtc", Value: t.At})
	case DeadLettered:
		sets = append(sets, claim.Set{Column: "DeadLetteredAtUtc", Value: t.At})
	}
	return sets
}

// ErrNotOwner is returned by a claim-checked transition whose writer no longer
// owns the claim: the lease was taken over, or the entry is already terminal.
var ErrNotOwner = claim.ErrNotOwner

// Due returns up to limit entries the plain store drain may emit at now, oldest first.
func (s *Store) Due(ctx context.Context, now time.Time, limit int) ([]Entry, error) {
	return s.queryEntries(ctx, s.DB(), "select due governance entries", `WHERE `+due+` ORDER BY CreatedAtUtc, Id LIMIT :limit`,
		sql.Named("now", clock.ISO(now)), sql.Named("limit", limit))
}

// ApplyTx persists t on entry id, keyed by Id alone: the plain store's write,
// which assumes a single drainer and checks nothing else.
func (s *Store) ApplyTx(ctx context.Context, tx *sql.Tx, id int64, actor string, t Transition) error {
	from, err := s.statusTx(ctx, tx, id)
	if err != nil {
		return err
	}
	if err := s.UpdateTx(ctx, tx, Entries, id, transitionSets(t)); err != nil {
		return fmt.Errorf("persist %s transition of governance entry %d: %w", t.To, id, err)
	}
	return s.logTransitionTx(ctx, tx, id, actor, 0, from, t, applied)
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
// now+lease, incrementing each one's ClaimToken (see claim.Store.ClaimTx).
// Call it in a transaction of s so no two claims interleave.
func (s *Store) ClaimTx(ctx context.Context, tx *sql.Tx, owner string, now time.Time, lease time.Duration, limit int) ([]Claim, error) {
	r := claim.Request{Owner: owner, Now: now, Lease: lease, Limit: limit}
	var claims []Claim
	err := s.Store.ClaimTx(ctx, tx, Entries, r, entryColumns, func(sc claim.Scanner) error {
		e, err := scanEntry(sc)
		if err != nil {
			return err
		}
		claims = append(claims, Claim{Entry: e, Owner: owner, Token: e.ClaimToken, LeaseUntil: r.LeaseUntil()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim governance entries: %w", err)
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
	from, err := s.statusTx(ctx, tx, id)
	if err != nil {
		return err
	}
	owned, err := s.SettleTx(ctx, tx, Entries, claim.Owner{ID: id, Owner: c.Owner, Token: c.Token}, transitionSets(t))
	if err != nil {
		return fmt.Errorf("persist %s transition of governance entry %d: %w", t.To, id, err)
	}
	if owned {
		return s.logTransitionTx(ctx, tx, id, c.Owner, c.Token, from, t, applied)
	}
	if err := s.logTransitionTx(ctx, tx, id, c.Owner, c.Token, from, t, refused); err != nil {
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
	at, ok, err = s.Store.NextDue(ctx, Entries, now)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("find next due governance entry: %w", err)
	}
	return at, ok, nil
}

func (s *Store) statusTx(ctx context.Context, tx *sql.Tx, id int64) (Status, error) {
	var st Status
	if err := s.QueryRow(ctx, tx, `SELECT Status FROM GovernanceOutboxEntries WHERE Id = ?`, id).Scan(&st); err != nil {
		return "", fmt.Errorf("read status of governance entry %d: %w", id, err)
	}
	return st, nil
}
