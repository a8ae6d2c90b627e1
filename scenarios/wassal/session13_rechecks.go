package wassal

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// Day 13's durable pending work: a table of its own beside Payments. The
// course has no outbox yet on Day 13 (OutboxMessages, written in the
// payment's transaction, is Day 14's lesson), so Day(13) is Payments
// only and the AFTER design adds this table.

// rechecksSchema is one row per payment whose charge answer was lost: the
// status check the service owes, and when it falls due.
const rechecksSchema = `CREATE TABLE IF NOT EXISTS Rechecks (
    Id           INTEGER PRIMARY KEY,
    PaymentKey   TEXT    NOT NULL,
    Status       TEXT    NOT NULL DEFAULT 'Pending' CHECK (Status IN ('Pending', 'Done')),
    DueAtUtc     TEXT    NOT NULL,
    Checks       INTEGER NOT NULL DEFAULT 0 CHECK (Checks >= 0),
    CreatedAtUtc TEXT    NOT NULL,
    DoneAtUtc    TEXT
) STRICT`

// recheckRow is one row of Rechecks.
type recheckRow struct {
	id     int64
	key    string
	status string // Pending or Done
	due    time.Time
	checks int
	done   time.Time // zero while Pending
}

const (
	recheckPending = "Pending"
	recheckDone    = "Done"
)

// openSession13 opens a Day 13 store: Payments, and the Rechecks table when
// the design is the durable one.
func openSession13(ctx context.Context, db dialect.Database, durable bool) (*outbox.Store, error) {
	store, err := Day(13).Open(ctx, db)
	if err != nil {
		return nil, err
	}
	if durable {
		if err := store.CreateTable(ctx, rechecksSchema); err != nil {
			store.Close()
			return nil, fmt.Errorf("create the re-checks table: %w", err)
		}
	}
	return store, nil
}

// writeRecheck writes a Pending re-check row for key, due at due, in a
// transaction of its own.
func writeRecheck(ctx context.Context, store *outbox.Store, key string, now, due time.Time) (id int64, err error) {
	err = store.InTx(ctx, func(tx *sql.Tx) error {
		return store.QueryRow(ctx, tx, `INSERT INTO Rechecks (PaymentKey, DueAtUtc, CreatedAtUtc) VALUES (?, ?, ?) RETURNING Id`,
			key, clock.ISO(due), clock.ISO(now)).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("write the re-check row of %s: %w", key, err)
	}
	return id, nil
}

// closeRecheck marks a re-check row Done, counting the status check that
// closed it when checked is set (an answered charge closes its row unasked).
func closeRecheck(ctx context.Context, store *outbox.Store, id int64, now time.Time, checked bool) error {
	return store.InTx(ctx, func(tx *sql.Tx) error {
		_, err := store.Exec(ctx, tx, `UPDATE Rechecks SET Status = 'Done', DoneAtUtc = ?, Checks = Checks + ? WHERE Id = ? AND Status = 'Pending'`,
			clock.ISO(now), boolInt(checked), id)
		if err != nil {
			return fmt.Errorf("close re-check row %d: %w", id, err)
		}
		return nil
	})
}

// postponeRecheck counts a failed status check and sets the row due again at due.
func postponeRecheck(ctx context.Context, store *outbox.Store, id int64, due time.Time) error {
	return store.InTx(ctx, func(tx *sql.Tx) error {
		_, err := store.Exec(ctx, tx, `UPDATE Rechecks SET DueAtUtc = ?, Checks = Checks + 1 WHERE Id = ? AND Status = 'Pending'`, clock.ISO(due), id)
		if err != nil {
			return fmt.Errorf("postpone re-check row %d: %w", id, err)
		}
		return nil
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readRechecks returns every re-check row, in the order they were written.
func readRechecks(ctx context.Context, store *outbox.Store) ([]recheckRow, error) {
	rows, err := store.Query(ctx, store.DB(), `SELECT Id, PaymentKey, Status, DueAtUtc, Checks, COALESCE(DoneAtUtc, '') FROM Rechecks ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read re-checks: %w", err)
	}
	defer rows.Close()
	var out []recheckRow
	for rows.Next() {
		var r recheckRow
		var due, done string
		if err := rows.Scan(&r.id, &r.key, &r.status, &due, &r.checks, &done); err != nil {
			return nil, fmt.Errorf("read re-checks: %w", err)
		}
		if r.due, err = time.Parse(clock.ISOLayout, due); err != nil {
			return nil, fmt.Errorf("read re-check %d: %w", r.id, err)
		}
		if done != "" {
			if r.done, err = time.Parse(clock.ISOLayout, done); err != nil {
				return nil, fmt.Errorf("read re-check %d: %w", r.id, err)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// nextRecheck is the Pending re-check row due first, if any.
func nextRecheck(rows []recheckRow) (recheckRow, bool) {
	var next recheckRow
	found := false
	for _, r := range rows {
		if r.status == recheckPending && (!found || r.due.Before(next.due)) {
			next, found = r, true
		}
	}
	return next, found
}

// recheckOf returns key's re-check row, if it has one.
func recheckOf(rows []recheckRow, key string) (recheckRow, bool) {
	for _, r := range rows {
		if r.key == key {
			return r, true
		}
	}
	return recheckRow{}, false
}

// writeRechecks prints the Rechecks table.
func writeRechecks(r *report.Report, rows []recheckRow) {
	out := make([][]string, 0, len(rows))
	for _, rc := range rows {
		out = append(out, []string{strconv.FormatInt(rc.id, 10), rc.key, rc.status, clock.Stamp(rc.due),
			strconv.Itoa(rc.checks), report.StampOrDash(rc.done)})
	}
	r.Table([]string{"Id", "PaymentKey", "Status", "DueAtUtc", "Checks", "DoneAtUtc"}, out)
}
