package emission

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/dialect"
)

// Entry is one governance outbox row as stored (GovernanceOutboxEntry).
type Entry struct {
	ID                int64
	Key               string
	EventType         string
	CorrelationID     string
	DecisionReceiptID string
	Provider          string
	Region            string
	Tenant            string
	Workload          string
	Payload           string // may hold protected content: never print it, never alert with it
	Status            Status
	RetryCount        int
	MaxRetryCount     int // legacy; the drain never reads it
	NextRetryAt       time.Time
	LastErrorCode     string
	LastErrorMessage  string
	ReasonCode        string
	ReasonMessage     string
	ClaimOwner        string
	ClaimLeaseUntil   time.Time
	ClaimToken        int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
	DeliveredAt       time.Time
	DeadLetteredAt    time.Time
	ReplayOf          int64 // the original entry a host replay stands for; 0 for originals
}

const entryColumns = `Id, EntryKey, EventType, CorrelationId, DecisionReceiptId, Provider, Region, Tenant, Workload,
	Payload, Status, RetryCount, MaxRetryCount, NextRetryAtUtc, LastErrorCode, LastErrorMessage, ReasonCode,
	ReasonMessage, ClaimOwner, ClaimLeaseUntilUtc, ClaimToken, CreatedAtUtc, UpdatedAtUtc, DeliveredAtUtc, DeadLetteredAtUtc,
	COALESCE(ReplayOfEntryId, 0)`

// scanner is a row being read (a *sql.Row or *sql.Rows).
type scanner = claim.Scanner

func scanEntry(sc scanner) (Entry, error) {
	var (
		e                                           Entry
		next, errCode, errMsg, reason, reasonMsg    sql.NullString
		owner, lease, created, updated, deliv, dead sql.NullString
	)
	err := sc.Scan(&e.ID, &e.Key, &e.EventType, &e.CorrelationID, &e.DecisionReceiptID, &e.Provider, &e.Region,
		&e.Tenant, &e.Workload, &e.Payload, &e.Status, &e.RetryCount, &e.MaxRetryCount, &next, &errCode, &errMsg,
		&reason, &reasonMsg, &owner, &lease, &e.ClaimToken, &created, &updated, &deliv, &dead, &e.ReplayOf)
	if err != nil {
		return e, err
	}
	e.LastErrorCode, e.LastErrorMessage = errCode.String, errMsg.String
	e.ReasonCode, e.ReasonMessage, e.ClaimOwner = reason.String, reasonMsg.String, owner.String
	for _, f := range []struct {
		dst *time.Time
		src sql.NullString
	}{{&e.NextRetryAt, next}, {&e.ClaimLeaseUntil, lease}, {&e.CreatedAt, created}, {&e.UpdatedAt, updated},
		{&e.DeliveredAt, deliv}, {&e.DeadLetteredAt, dead}} {
		if *f.dst, err = dialect.ParseNullTime(f.src); err != nil {
			return e, err
		}
	}
	return e, nil
}

func (s *Store) queryEntries(ctx context.Context, q claim.Querier, what, where string, args ...any) ([]Entry, error) {
	return queryAll(ctx, s, q, what, scanEntry, `SELECT `+entryColumns+` FROM GovernanceOutboxEntries `+where, args...)
}

// entryByID reads the entry with Id id in q.
func (s *Store) entryByID(ctx context.Context, q claim.Querier, id int64) (Entry, error) {
	return scanEntry(s.QueryRow(ctx, q, `SELECT `+entryColumns+` FROM GovernanceOutboxEntries WHERE Id = ?`, id))
}

// Entries returns every entry in creation order.
func (s *Store) Entries(ctx context.Context) ([]Entry, error) {
	return s.queryEntries(ctx, s.DB(), "list governance entries", `ORDER BY CreatedAtUtc, Id`)
}

// EntryByKey returns the entry labelled key.
func (s *Store) EntryByKey(ctx context.Context, key string) (Entry, error) {
	e, err := scanEntry(s.QueryRow(ctx, s.DB(), `SELECT `+entryColumns+` FROM GovernanceOutboxEntries WHERE EntryKey = ?`, key))
	if err != nil {
		return e, fmt.Errorf("read governance entry %s: %w", key, err)
	}
	return e, nil
}

// Counts returns how many entries are in each status (absent statuses are 0).
func (s *Store) Counts(ctx context.Context) (map[Status]int, error) {
	type count struct {
		st Status
		n  int
	}
	counts, err := queryAll(ctx, s, s.DB(), "count governance entries", func(sc claim.Scanner) (c count, err error) {
		return c, sc.Scan(&c.st, &c.n)
	}, `SELECT Status, COUNT(*) FROM GovernanceOutboxEntries GROUP BY Status`)
	if err != nil {
		return nil, err
	}
	out := map[Status]int{Pending: 0, Deferred: 0, Failed: 0, RetryableFailure: 0, Delivered: 0, DeadLettered: 0, Quarantined: 0}
	for _, c := range counts {
		out[c.st] = c.n
	}
	return out, nil
}
