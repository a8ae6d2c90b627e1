package ordered

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
)

// failureEventType names the event published when a record of r's type is dead-lettered.
func failureEventType(r keyedlog.Record) string {
	switch r.Type {
	case OrderPlaced:
		return "OrderPlacementFailed"
	case PaymentReceived:
		return "PaymentFailed"
	case OrderShipped:
		return "ShipmentFailed"
	}
	return "CancellationFailed"
}

// careEntry is one row of CustomerCareLog.
type careEntry struct {
	EventID       int64
	EventType     string
	CorrelationID string
	Action        string
	At            time.Time
}

// careListener is customer care on s's database: it hears a failure event
// and records what it does about it.
func careListener(s *keyedlog.Store) keyedlog.Listener {
	return func(ctx context.Context, tx *sql.Tx, e keyedlog.FailureEvent, now time.Time) (string, error) {
		action := fmt.Sprintf("tell the customer of %s; hold fulfilment until the replay", e.CorrelationID)
		_, err := s.ExecTx(ctx, tx,
			`INSERT INTO CustomerCareLog (EventId, EventType, CorrelationId, Action, AtUtc) VALUES (?, ?, ?, ?, ?)`,
			e.ID, e.Type, e.CorrelationID, action, clock.ISO(now))
		if err != nil {
			return "", fmt.Errorf("record failure event %d: %w", e.ID, err)
		}
		return action, nil
	}
}

func readCare(ctx context.Context, db *sql.DB) ([]careEntry, error) {
	rows, err := db.QueryContext(ctx, `SELECT EventId, EventType, CorrelationId, Action, AtUtc FROM CustomerCareLog ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read customer care log: %w", err)
	}
	defer rows.Close()
	var out []careEntry
	for rows.Next() {
		var c careEntry
		var at string
		if err := rows.Scan(&c.EventID, &c.EventType, &c.CorrelationID, &c.Action, &at); err != nil {
			return nil, fmt.Errorf("read customer care log: %w", err)
		}
		if c.At, err = time.Parse(clock.ISOLayout, at); err != nil {
			return nil, fmt.Errorf("read customer care log: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
