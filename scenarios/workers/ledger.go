package workers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// deliveriesSchema is the business side of a drain: one Deliveries row per
// handled message, written in the same transaction as its Processed
// transition, and one Settlements row per transaction that wrote any, so the
// file itself says which messages were settled together. MessageId is
// deliberately not unique, so that a second delivery would be counted here
// rather than refused.
const deliveriesSchema = `CREATE TABLE IF NOT EXISTS Settlements (
    Id     INTEGER PRIMARY KEY,
    Worker TEXT    NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS Deliveries (
    Id         INTEGER PRIMARY KEY,
    MessageId  INTEGER NOT NULL,
    Worker     TEXT    NOT NULL,
    Attempt    INTEGER NOT NULL,
    Settlement INTEGER NOT NULL REFERENCES Settlements (Id)
) STRICT;`

// deliveryStatements are the two writes of the delivery ledger, prepared once.
type deliveryStatements struct {
	settlement, delivery *sql.Stmt
}

// openWithLedger opens (creating if needed) the lab database at location
// with the delivery ledger beside the outbox.
func openWithLedger(ctx context.Context, db dialect.Database) (*outbox.Store, error) {
	store, err := outbox.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	if err := store.CreateTable(ctx, deliveriesSchema); err != nil {
		store.Close()
		return nil, fmt.Errorf("create the delivery ledger: %w", err)
	}
	return store, nil
}

// prepared is query, whose params placeholders are all ?, in the words of
// store's database: a statement to prepare, its arguments given later.
func prepared(store *outbox.Store, query string, params int) string {
	query, _ = store.Dialect().Bind(query, make([]any, params)...)
	return query
}

func prepareDeliveries(ctx context.Context, store *outbox.Store) (*deliveryStatements, error) {
	settlement, err := store.DB().PrepareContext(ctx, prepared(store, `INSERT INTO Settlements (Worker) VALUES (?) RETURNING Id`, 1))
	if err != nil {
		return nil, fmt.Errorf("prepare the settlement ledger: %w", err)
	}
	delivery, err := store.DB().PrepareContext(ctx, prepared(store, `INSERT INTO Deliveries (MessageId, Worker, Attempt, Settlement) VALUES (?, ?, ?, ?)`, 4))
	if err != nil {
		settlement.Close()
		return nil, fmt.Errorf("prepare the delivery ledger: %w", err)
	}
	return &deliveryStatements{settlement: settlement, delivery: delivery}, nil
}

func (s *deliveryStatements) Close() error {
	return errors.Join(s.settlement.Close(), s.delivery.Close())
}

// deliveryLedger records one worker's deliveries. A worker settles one batch
// per transaction, one transaction at a time, so a transaction it has not
// seen yet is a new settlement. It keeps the last transaction referenced,
// so a new one can never reuse its address.
type deliveryLedger struct {
	stmts      *deliveryStatements
	worker     string
	lastTx     *sql.Tx
	settlement int64
}

// record writes message c's delivery in tx, the transaction that settles it.
func (l *deliveryLedger) record(ctx context.Context, tx *sql.Tx, c outbox.Claim) error {
	if tx != l.lastTx {
		if err := tx.StmtContext(ctx, l.stmts.settlement).QueryRowContext(ctx, l.worker).Scan(&l.settlement); err != nil {
			return fmt.Errorf("record a settlement by %s: %w", l.worker, err)
		}
		l.lastTx = tx
	}
	if _, err := tx.StmtContext(ctx, l.stmts.delivery).ExecContext(ctx, c.MessageID, l.worker, c.Attempt, l.settlement); err != nil {
		return fmt.Errorf("record delivery of message %d: %w", c.MessageID, err)
	}
	return nil
}

// ledgerMetrics are a drained file's invariants, read back from the database.
type ledgerMetrics struct {
	Total               int // outbox rows
	Processed, Live     int // outbox rows Processed; Pending or Processing
	Attempts, MaxTries  int // sum and maximum of AttemptCount
	Deliveries, Unique  int // ledger rows; distinct messages in them
	Undelivered         int // outbox rows with no ledger row
	DeliveredWrongTries int // ledger rows whose attempt is not the row's AttemptCount
	Settlements         int // settlement transactions that recorded a delivery
	LargestSettlement   int // most deliveries one settlement recorded
}

func readLedger(ctx context.Context, store *outbox.Store) (ledgerMetrics, error) {
	var f ledgerMetrics
	db := store.DB()
	err := db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN Status = 'Processed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN Status IN ('Pending', 'Processing') THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(AttemptCount), 0), COALESCE(MAX(AttemptCount), 0) FROM OutboxMessages`).
		Scan(&f.Total, &f.Processed, &f.Live, &f.Attempts, &f.MaxTries)
	if err != nil {
		return f, fmt.Errorf("read the outbox after the drain: %w", err)
	}
	err = db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT MessageId) FROM Deliveries`).Scan(&f.Deliveries, &f.Unique)
	if err != nil {
		return f, fmt.Errorf("read the delivery ledger: %w", err)
	}
	err = db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM OutboxMessages WHERE Id NOT IN (SELECT MessageId FROM Deliveries)),
		(SELECT COUNT(*) FROM Deliveries d JOIN OutboxMessages m ON m.Id = d.MessageId WHERE d.Attempt <> m.AttemptCount)`).
		Scan(&f.Undelivered, &f.DeliveredWrongTries)
	if err != nil {
		return f, fmt.Errorf("match the ledger with the outbox: %w", err)
	}
	err = db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM Deliveries GROUP BY Settlement) AS s`).
		Scan(&f.Settlements, &f.LargestSettlement)
	if err != nil {
		return f, fmt.Errorf("read the settlements: %w", err)
	}
	return f, nil
}
