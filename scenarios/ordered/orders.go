package ordered

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
)

//go:embed orders.sql
var ordersSchema string

// The message types of one order's stream, in sequence order.
const (
	OrderPlaced     = "OrderPlaced"
	PaymentReceived = "PaymentReceived"
	OrderShipped    = "OrderShipped"
	OrderCancelled  = "OrderCancelled"
)

// firstOrder is the id of the first produced order; the course's order 42 is the second.
const firstOrder = 41

// orderKey is an order's partitioning key and correlation id: order-42.
func orderKey(id int) string { return fmt.Sprintf("order-%d", id) }

// amountCents gives each order a distinct, fixed amount: order 42 costs 67.00.
func amountCents(id int) int64 { return 2500 + 100*int64(id) }

// stream is the types an order's messages carry, in sequence order: the
// failing order of a cancellation story is cancelled instead of shipped.
func stream(cancelled bool) []string {
	if cancelled {
		return []string{OrderPlaced, PaymentReceived, OrderCancelled}
	}
	return []string{OrderPlaced, PaymentReceived, OrderShipped}
}

type payload struct {
	OrderID     int   `json:"orderId"`
	AmountCents int64 `json:"amountCents"`
}

// produce writes every order's stream to the log in sequence rounds (every
// order's sequence 1, then every sequence 2, ...), each keyed by its order so
// that partition = order id mod partitions; sequence n depends on n-1. The
// producer writes the whole log in one transaction.
func (o *options) produce(ctx context.Context, s *keyedlog.Store, cancelled bool, at time.Time) error {
	if err := s.CreatePartitions(ctx, o.Partitions); err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		for seq := 1; seq <= 3; seq++ {
			for _, id := range o.orderIDs() {
				typ := stream(cancelled && id == o.FailingOrder)[seq-1]
				body, err := json.Marshal(payload{OrderID: id, AmountCents: amountCents(id)})
				if err != nil {
					return fmt.Errorf("encode payload of order %d: %w", id, err)
				}
				_, err = s.AppendTx(ctx, tx, keyedlog.NewRecord{Partition: id % o.Partitions,
					MessageID: fmt.Sprintf("%s/%d", orderKey(id), seq), Key: orderKey(id), CorrelationID: orderKey(id),
					Type: typ, Sequence: seq, DependsOn: seq - 1, Payload: string(body)}, at, 0)
				if err != nil {
					return fmt.Errorf("produce %s for order %d: %w", typ, id, err)
				}
			}
		}
		return nil
	})
}

// fault is the bug: one message type fails for one order until it is fixed.
type fault struct {
	orderID int
	typ     string
	fixed   bool
}

func (f *fault) check(p payload, typ string) error {
	if f == nil || f.fixed || p.OrderID != f.orderID || typ != f.typ {
		return nil
	}
	return &bugError{fmt.Sprintf("%s handler bug: amount %s for order %d rejected", typ, money(p.AmountCents), p.OrderID)}
}

// transientFault fails one order's message its first left times: a
// provider timeout that a retry cures.
type transientFault struct {
	orderID int
	typ     string
	left    int
}

func (f *transientFault) check(p payload, typ string) error {
	if f == nil || f.left == 0 || p.OrderID != f.orderID || typ != f.typ {
		return nil
	}
	f.left--
	return fmt.Errorf("%s for order %d: payment provider timed out", typ, p.OrderID)
}

// permanent is the guard's classifier (the course's !IsTransient(ex)): the
// bug rejects the same message every time, so no retry can cure it; any
// other failure may pass on a later attempt.
func permanent(err error) bool {
	var bug *bugError
	return errors.As(err, &bug)
}

// bugError is a failure the bug itself caused, as opposed to a strict
// handler's missing earlier state.
type bugError struct{ msg string }

func (e *bugError) Error() string { return e.msg }

// orderHandler is the order service's consumer. A lenient one stores what it
// is given and updates whatever order row there is; a strict one assumes the
// earlier state exists and throws when it does not. It keeps its own ledger
// of every call, the record the checks read instead of the consumer's events.
type orderHandler struct {
	store     *keyedlog.Store // the database its tables are in
	strict    bool
	fault     *fault
	transient *transientFault
	stage     stage // set by the driver: who is calling now
	calls     []call
}

// stage is who hands records to the handler: the consumer before the fix,
// a replay pass, or the consumer after the fix.
type stage int

const (
	beforeFix stage = iota
	afterFix
	replayPass // replayPass + i is replay pass i (0-based)
)

// call is one Apply as the handler saw it.
type call struct {
	stage  stage
	rec    keyedlog.Record
	at     time.Time
	err    error
	faulty bool // the bug itself failed it (not missing state)
}

// errMissingState is what a strict handler throws.
var errMissingState = errors.New("earlier state missing")

func (h *orderHandler) Apply(ctx context.Context, tx *sql.Tx, r keyedlog.Record, now time.Time) (string, error) {
	detail, err := h.change(ctx, tx, r, now)
	var bug *bugError
	h.calls = append(h.calls, call{stage: h.stage, rec: r, at: now, err: err, faulty: errors.As(err, &bug)})
	return detail, err
}

func (h *orderHandler) change(ctx context.Context, tx *sql.Tx, r keyedlog.Record, now time.Time) (string, error) {
	var p payload
	if err := json.Unmarshal([]byte(r.Payload), &p); err != nil {
		return "", fmt.Errorf("decode %s payload: %w", r.Type, err)
	}
	if err := h.fault.check(p, r.Type); err != nil {
		return "", err
	}
	if err := h.transient.check(p, r.Type); err != nil {
		return "", err
	}
	status, exists, err := h.orderStatus(ctx, tx, p.OrderID)
	if err != nil {
		return "", err
	}
	if h.strict && r.Type != OrderPlaced {
		switch {
		case !exists:
			return "", fmt.Errorf("order %d not found: %w", p.OrderID, errMissingState)
		case r.Type == OrderShipped && status != "Paid":
			return "", fmt.Errorf("order %d is %s, not Paid: %w", p.OrderID, status, errMissingState)
		}
	}
	at := clock.ISO(now)
	switch r.Type {
	case OrderPlaced:
		_, err = h.store.ExecTx(ctx, tx, `INSERT INTO Orders (Id, Status, AmountCents, CreatedAtUtc, UpdatedAtUtc) VALUES (?, 'Placed', ?, ?, ?)`,
			p.OrderID, p.AmountCents, at, at)
		return fmt.Sprintf("order %d Placed (%s)", p.OrderID, money(p.AmountCents)), wrap(err, "insert order")
	case PaymentReceived:
		if _, err := h.store.ExecTx(ctx, tx, `INSERT INTO OrderPayments (OrderId, AmountCents, MessageId, ReceivedAtUtc) VALUES (?, ?, ?, ?)`,
			p.OrderID, p.AmountCents, r.MessageID, at); err != nil {
			return "", wrap(err, "insert payment")
		}
		return h.setStatus(ctx, tx, p, "Paid", status, exists, fmt.Sprintf("payment %s stored", money(p.AmountCents)), at)
	case OrderShipped:
		if _, err := h.store.ExecTx(ctx, tx, `INSERT INTO Shipments (OrderId, MessageId, ShippedAtUtc) VALUES (?, ?, ?)`,
			p.OrderID, r.MessageID, at); err != nil {
			return "", wrap(err, "insert shipment")
		}
		return h.setStatus(ctx, tx, p, "Shipped", status, exists, "shipment stored", at)
	case OrderCancelled:
		return h.setStatus(ctx, tx, p, "Cancelled", status, exists, "cancellation", at)
	}
	return "", fmt.Errorf("unknown message type %q", r.Type)
}

// setStatus moves the order to status, whatever it was: the handler trusts
// that the messages arrive in order.
func (h *orderHandler) setStatus(ctx context.Context, tx *sql.Tx, p payload, status, was string, exists bool, what, at string) (string, error) {
	if !exists {
		return fmt.Sprintf("%s; no order %d to attach it to", what, p.OrderID), nil
	}
	paid := int64(0)
	if status == "Paid" {
		paid = p.AmountCents
	}
	_, err := h.store.ExecTx(ctx, tx, `UPDATE Orders SET Status = ?, PaidCents = PaidCents + ?, UpdatedAtUtc = ? WHERE Id = ?`,
		status, paid, at, p.OrderID)
	return fmt.Sprintf("%s; order %d %s → %s", what, p.OrderID, was, status), wrap(err, "update order")
}

func (h *orderHandler) orderStatus(ctx context.Context, tx *sql.Tx, id int) (string, bool, error) {
	var status string
	query, args := h.store.Dialect().Bind(`SELECT Status FROM Orders WHERE Id = ?`, id)
	err := tx.QueryRowContext(ctx, query, args...).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read order %d: %w", id, err)
	}
	return status, true, nil
}

func wrap(err error, doing string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", doing, err)
}

func money(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }
