package emission

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// Remediation is a host-owned, audited decision about one entry. The built-in
// drain never writes one: it is the host's policy when it switches the
// threshold's dead-letter off, or when it reviews and replays a dead-letter.
type Remediation struct {
	Action       string // e.g. quarantine-for-manual-review, replay
	Reviewer     string
	Reason       string
	Approval     string
	Ticket       string
	AffectedFrom time.Time // the incident window, when known
	AffectedTo   time.Time
	// Cause is the runbook's class of the repeated failure (one of Causes)
	// and Fix what was corrected; a replay is refused without both.
	Cause Cause
	Fix   string
}

// Cause is a class of repeated failure, as the runbook names it before a replay.
type Cause string

// Causes are the classes the host's runbook identifies before any replay.
var Causes = []Cause{"provider unavailability", "malformed data", "schema drift", "authorization",
	"classification policy", "credentials", "throttling", "application defect"}

// Known reports whether c is one of Causes.
func (c Cause) Known() bool {
	for _, k := range Causes {
		if c == k {
			return true
		}
	}
	return false
}

// RemediationRecord is one row of the remediation log.
type RemediationRecord struct {
	Remediation
	ID               int64
	At               time.Time
	EntryID          int64
	RetryCountBefore int
	RetryCountAfter  int
	ReplayEntryID    int64 // the replay entry a replay created; 0 otherwise
}

// QuarantineTx is a host terminal policy: it moves a live entry to
// Quarantined, releases any claim, keeps its retry history exactly as it is,
// and records who decided it and why in the same transaction.
func (s *Store) QuarantineTx(ctx context.Context, tx *sql.Tx, id int64, now time.Time, r Remediation) error {
	from, err := s.statusTx(ctx, tx, id)
	if err != nil {
		return err
	}
	var retry int
	err = s.QueryRow(ctx, tx,
		`UPDATE GovernanceOutboxEntries
		    SET Status = 'Quarantined', NextRetryAtUtc = NULL, ClaimOwner = NULL, ClaimLeaseUntilUtc = NULL, UpdatedAtUtc = :at
		  WHERE Id = :id AND `+live+` RETURNING RetryCount`,
		sql.Named("at", clock.ISO(now)), sql.Named("id", id)).Scan(&retry)
	if err != nil {
		return fmt.Errorf("quarantine governance entry %d: %w", id, err)
	}
	if err := s.recordRemediationTx(ctx, tx, id, now, r, retry, retry, 0); err != nil {
		return err
	}
	return s.logTransitionTx(ctx, tx, id, r.Reviewer, 0, from, Transition{To: Quarantined, RetryCount: retry, At: now}, applied)
}

// Quarantine is QuarantineTx in a transaction of its own.
func (s *Store) Quarantine(ctx context.Context, id int64, now time.Time, r Remediation) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.QuarantineTx(ctx, tx, id, now, r) })
}

func (s *Store) recordRemediationTx(ctx context.Context, tx *sql.Tx, id int64, now time.Time, r Remediation, before, after int, replay int64) error {
	var replayID any
	if replay > 0 {
		replayID = replay
	}
	_, err := s.Exec(ctx, tx,
		`INSERT INTO GovernanceRemediations (AtUtc, EntryId, Action, Reviewer, Reason, Approval, Ticket,
		        AffectedFromUtc, AffectedToUtc, RetryCountBefore, RetryCountAfter, ReplayEntryId, Cause, Fix)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		clock.ISO(now), id, r.Action, r.Reviewer, r.Reason, r.Approval, r.Ticket,
		dialect.NullTime(r.AffectedFrom), dialect.NullTime(r.AffectedTo), before, after, replayID,
		dialect.NullString(string(r.Cause)), dialect.NullString(r.Fix))
	if err != nil {
		return fmt.Errorf("record remediation of governance entry %d: %w", id, err)
	}
	return nil
}

// Remediations returns the remediation log in order.
func (s *Store) Remediations(ctx context.Context) ([]RemediationRecord, error) {
	return queryAll(ctx, s, s.DB(), "read remediation log", scanRemediation,
		`SELECT Id, AtUtc, EntryId, Action, Reviewer, Reason, Approval, Ticket, AffectedFromUtc, AffectedToUtc,
		        RetryCountBefore, RetryCountAfter, COALESCE(ReplayEntryId, 0), COALESCE(Cause, ''), COALESCE(Fix, '')
		   FROM GovernanceRemediations ORDER BY Id`)
}

func scanRemediation(sc scanner) (RemediationRecord, error) {
	var (
		r              RemediationRecord
		at, from, till sql.NullString
	)
	err := sc.Scan(&r.ID, &at, &r.EntryID, &r.Action, &r.Reviewer, &r.Reason, &r.Approval, &r.Ticket,
		&from, &till, &r.RetryCountBefore, &r.RetryCountAfter, &r.ReplayEntryID, &r.Cause, &r.Fix)
	if err != nil {
		return r, err
	}
	for _, f := range []struct {
		dst *time.Time
		src sql.NullString
	}{{&r.At, at}, {&r.AffectedFrom, from}, {&r.AffectedTo, till}} {
		if *f.dst, err = dialect.ParseNullTime(f.src); err != nil {
			return r, err
		}
	}
	return r, nil
}
