package ordered

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
)

// orderState is what the order service knows about one order: the metrics
// an in-order run is compared on.
type orderState struct {
	ID        int
	Exists    bool // an Orders row exists
	Status    string
	PaidCents int64
	Payments  int // OrderPayments rows for the order, attached or not
	Shipments int
}

func (s orderState) String() string {
	rows := fmt.Sprintf("%s, %s", report.Plural(s.Payments, "payment"), report.Plural(s.Shipments, "shipment"))
	if !s.Exists {
		return "no order row; " + rows
	}
	return fmt.Sprintf("%s, paid %s; %s", s.Status, money(s.PaidCents), rows)
}

// brief is the order row alone, for a table cell: "Placed, paid 0.00".
func (s orderState) brief() string {
	if !s.Exists {
		return "no order row"
	}
	return fmt.Sprintf("%s, paid %s", s.Status, money(s.PaidCents))
}

// readStates reads the state of every order in ids.
func readStates(ctx context.Context, s *keyedlog.Store, ids []int) ([]orderState, error) {
	out := make([]orderState, 0, len(ids))
	for _, id := range ids {
		st := orderState{ID: id}
		var status sql.NullString
		var paid sql.NullInt64
		err := s.QueryRow(ctx, s.DB(),
			`SELECT (SELECT Status FROM Orders WHERE Id = :id), (SELECT PaidCents FROM Orders WHERE Id = :id),
			        (SELECT COUNT(*) FROM OrderPayments WHERE OrderId = :id), (SELECT COUNT(*) FROM Shipments WHERE OrderId = :id)`,
			sql.Named("id", id)).Scan(&status, &paid, &st.Payments, &st.Shipments)
		if err != nil {
			return nil, fmt.Errorf("read state of order %d: %w", id, err)
		}
		st.Exists, st.Status, st.PaidCents = status.Valid, status.String, paid.Int64
		out = append(out, st)
	}
	return out, nil
}

// orphans are payment and shipment rows whose order does not exist.
type orphans struct{ payments, shipments int }

func (o orphans) total() int { return o.payments + o.shipments }

func (o orphans) String() string {
	return fmt.Sprintf("%s and %s with no order", report.Plural(o.payments, "payment"), report.Plural(o.shipments, "shipment"))
}

// brief counts the rows for a line that says what they are: "1 payment,
// 1 shipment", or "none".
func (o orphans) brief() string {
	if o.total() == 0 {
		return "none"
	}
	return fmt.Sprintf("%s, %s", report.Plural(o.payments, "payment"), report.Plural(o.shipments, "shipment"))
}

func readOrphans(ctx context.Context, s *keyedlog.Store) (orphans, error) {
	var o orphans
	err := s.QueryRow(ctx, s.DB(),
		`SELECT (SELECT COUNT(*) FROM OrderPayments p WHERE NOT EXISTS (SELECT 1 FROM Orders o WHERE o.Id = p.OrderId)),
		        (SELECT COUNT(*) FROM Shipments s WHERE NOT EXISTS (SELECT 1 FROM Orders o WHERE o.Id = s.OrderId))`).
		Scan(&o.payments, &o.shipments)
	if err != nil {
		return o, fmt.Errorf("count orphan rows: %w", err)
	}
	return o, nil
}

// sameStates counts the orders whose state equals the in-order run's, and
// lists the ones that differ.
func sameStates(got, want []orderState) (same int, differ []int) {
	for i := range got {
		if i < len(want) && got[i] == want[i] {
			same++
			continue
		}
		differ = append(differ, got[i].ID)
	}
	return same, differ
}

func joinStrings(xs []string) string { return strings.Join(xs, "; ") }

func containsInt(xs []int, x int) bool { return slices.Contains(xs, x) }

func sortedInts(xs []int) []int {
	slices.Sort(xs)
	return xs
}
