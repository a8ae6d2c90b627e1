package emission

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// ErrReplayNotAuthorized is returned by a replay that lacks any of reviewer,
// reason, approval or ticket: replay is never implicit.
var ErrReplayNotAuthorized = errors.New("replay needs an explicit authorization (reviewer, reason, approval and ticket)")

// ErrReplayNoCause is returned by a replay whose remediation records no
// known cause (one of Causes) or no fix: the runbook corrects the cause first.
var ErrReplayNoCause = errors.New("replay needs a recorded cause and fix")

// ActionReplay is the remediation log's Action of a host replay.
const ActionReplay = "replay"

// ReplayTx is the host's replay of one dead-lettered entry. The drain never
// replays anything. The original keeps its status, terminal reason, retry
// count and history; a new entry (key <original>-R<n>) carries the same
// emission with RetryCount 0 and its own claims, references the original, and
// a remediation record says who authorized it, why, for which window, what
// caused the failures and what was fixed, and that the original's retry count
// was kept. Nothing is written without a complete authorization, nor
// without a known cause and a fix.
func (s *Store) ReplayTx(ctx context.Context, tx *sql.Tx, id int64, now time.Time, r Remediation) (Entry, error) {
	for _, f := range []string{r.Reviewer, r.Reason, r.Approval, r.Ticket} {
		if strings.TrimSpace(f) == "" {
			return Entry{}, fmt.Errorf("replay governance entry %d: %w", id, ErrReplayNotAuthorized)
		}
	}
	if !r.Cause.Known() || strings.TrimSpace(r.Fix) == "" {
		return Entry{}, fmt.Errorf("replay governance entry %d: %w", id, ErrReplayNoCause)
	}
	orig, err := s.entryByID(ctx, tx, id)
	if err != nil {
		return Entry{}, fmt.Errorf("replay governance entry %d: %w", id, err)
	}
	if orig.Status != DeadLettered {
		return Entry{}, fmt.Errorf("replay governance entry %d: it is %s, not DeadLettered", id, orig.Status)
	}
	var n int
	if err := s.QueryRow(ctx, tx, `SELECT COUNT(*) FROM GovernanceOutboxEntries WHERE ReplayOfEntryId = ?`, id).Scan(&n); err != nil {
		return Entry{}, fmt.Errorf("replay governance entry %d: %w", id, err)
	}
	key := fmt.Sprintf("%s-R%d", orig.Key, n+1)
	var newID int64
	err = s.QueryRow(ctx, tx,
		`INSERT INTO GovernanceOutboxEntries (EntryKey, EventType, CorrelationId, DecisionReceiptId, Provider, Region, Tenant,
		        Workload, Payload, MaxRetryCount, CreatedAtUtc, UpdatedAtUtc, ReplayOfEntryId)
		 SELECT :key, EventType, CorrelationId, DecisionReceiptId, Provider, Region, Tenant, Workload, Payload, MaxRetryCount,
		        :now, :now, Id
		   FROM GovernanceOutboxEntries WHERE Id = :id
		 RETURNING Id`,
		sql.Named("key", key), sql.Named("now", clock.ISO(now)), sql.Named("id", id)).Scan(&newID)
	if err != nil {
		return Entry{}, fmt.Errorf("replay governance entry %d: %w", id, err)
	}
	r.Action = ActionReplay
	if err := s.recordRemediationTx(ctx, tx, id, now, r, orig.RetryCount, orig.RetryCount, newID); err != nil {
		return Entry{}, err
	}
	return s.entryByID(ctx, tx, newID)
}

// Replay is ReplayTx in a transaction of its own.
func (s *Store) Replay(ctx context.Context, id int64, now time.Time, r Remediation) (e Entry, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		e, err = s.ReplayTx(ctx, tx, id, now, r)
		return err
	})
	return e, err
}

// incidentOpen is GovernanceIncidents.Status of an incident not yet closed.
const incidentOpen = "Open"

// Incident is one host review item, opened for a dead-letter.
type Incident struct {
	ID              int64
	EntryID         int64
	OpenedAt        time.Time
	ReasonCode      string
	Open            bool
	ClosedAt        time.Time
	ClosedBy        string
	ProviderReceipt string
}

// OpenIncidents opens one incident for every dead-lettered entry that has
// none yet, at now, and returns how many it opened.
func (s *Store) OpenIncidents(ctx context.Context, now time.Time) (int, error) {
	res, err := s.Exec(ctx, s.DB(),
		`INSERT INTO GovernanceIncidents (EntryId, OpenedAtUtc, ReasonCode)
		 SELECT Id, ?, ReasonCode FROM GovernanceOutboxEntries e
		  WHERE Status = 'DeadLettered' AND NOT EXISTS (SELECT 1 FROM GovernanceIncidents i WHERE i.EntryId = e.Id)
		  ORDER BY Id`, clock.ISO(now))
	if err != nil {
		return 0, fmt.Errorf("open incidents: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ErrNoReceipt is returned when an incident would be closed without the
// provider-side receipt that proves the replay arrived.
var ErrNoReceipt = errors.New("an incident closes only on a provider-side receipt")

// CloseIncident closes an open incident, citing the provider's receipt.
func (s *Store) CloseIncident(ctx context.Context, id int64, now time.Time, by, receipt string) error {
	if strings.TrimSpace(receipt) == "" {
		return fmt.Errorf("close incident %d: %w", id, ErrNoReceipt)
	}
	res, err := s.Exec(ctx, s.DB(),
		`UPDATE GovernanceIncidents SET Status = 'Closed', ClosedAtUtc = ?, ClosedBy = ?, ProviderReceipt = ?
		  WHERE Id = ? AND Status = 'Open'`, clock.ISO(now), by, receipt, id)
	if err != nil {
		return fmt.Errorf("close incident %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("close incident %d: it is not open", id)
	}
	return nil
}

// Incidents returns every incident in order.
func (s *Store) Incidents(ctx context.Context) ([]Incident, error) {
	return queryAll(ctx, s, s.DB(), "read incidents", scanIncident,
		`SELECT Id, EntryId, OpenedAtUtc, ReasonCode, Status, ClosedAtUtc, COALESCE(ClosedBy, ''), COALESCE(ProviderReceipt, '')
		   FROM GovernanceIncidents ORDER BY Id`)
}

func scanIncident(sc scanner) (Incident, error) {
	var (
		in             Incident
		opened, status string
		closed         sql.NullString
	)
	err := sc.Scan(&in.ID, &in.EntryID, &opened, &in.ReasonCode, &status, &closed, &in.ClosedBy, &in.ProviderReceipt)
	if err != nil {
		return in, err
	}
	in.Open = status == incidentOpen
	if in.OpenedAt, err = dialect.ParseNullTime(sql.NullString{String: opened, Valid: true}); err != nil {
		return in, err
	}
	in.ClosedAt, err = dialect.ParseNullTime(closed)
	return in, err
}
