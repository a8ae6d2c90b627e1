// Package wassal holds the Wassal series scenarios (Days 13-17): six payments
// whose provider outcome must be confirmed through the outbox.
package wassal

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/worker"
)

// ConfirmType is the outbox message type that asks the provider for a payment's status.
const ConfirmType = "ConfirmPaymentStatus"

// PaymentKey returns the key of the i-th seeded payment (1-based): PAY-001.
func PaymentKey(i int) string { return fmt.Sprintf("PAY-%03d", i) }

// PaymentKeys returns the keys of n seeded payments.
func PaymentKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = PaymentKey(i + 1)
	}
	return keys
}

// amountCents gives each seeded payment a distinct, fixed amount.
func amountCents(i int) int64 { return int64(10000 + 1250*i) }

// SeedDurableOutbox writes n payments pending confirmation, each with its
// outbox message in the same transaction (the Day 14 transactional outbox).
// maxAttempts is written on every message; 0 leaves the ceiling NULL.
func SeedDurableOutbox(ctx context.Context, s *outbox.Store, n, maxAttempts int, at time.Time) error {
	for i := 1; i <= n; i++ {
		key := PaymentKey(i)
		err := s.InTx(ctx, func(tx *sql.Tx) error {
			if _, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{
				Key: key, AmountCents: amountCents(i), Status: outbox.PendingConfirmation, CreatedAt: at,
			}); err != nil {
				return err
			}
			_, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{
				Key: key, Type: ConfirmType, MaxAttempts: maxAttempts, CreatedAt: at,
				Payload: fmt.Sprintf(`{"paymentKey":%q,"amountCents":%d}`, key, amountCents(i)),
			})
			return err
		})
		if err != nil {
			return fmt.Errorf("seed payment %s: %w", key, err)
		}
	}
	return nil
}

// NewProvider scripts the fake provider: every key pays, except the poison
// keys, whose status check fails every time, and the declined key.
func NewProvider(poison []string, declined string) *provider.Provider {
	p := provider.New(provider.Rule{Outcome: provider.Paid})
	for _, k := range poison {
		p.Script(k, provider.Rule{FailFirst: provider.FailForever})
	}
	if declined != "" {
		p.Script(declined, provider.Rule{Outcome: provider.Declined})
	}
	return p
}

// ScriptText says in one word what the provider was scripted to do for key:
// pays, declines, poison (its status check fails every time), or fails N×,
// pays (a transient failure).
func ScriptText(p *provider.Provider, key string) string {
	r := p.Rule(key)
	switch {
	case r.FailFirst == provider.FailForever:
		return "poison"
	case r.FailFirst > 0:
		return fmt.Sprintf("fails %d×, pays", r.FailFirst)
	case r.Outcome == provider.Declined:
		return "declines"
	default:
		return "pays"
	}
}

// ConfirmHandler asks the provider for a payment's status and, on an answer,
// records it on the payment in the same transaction that completes the message.
// It never charges: the provider is only asked what happened.
func ConfirmHandler(p *provider.Provider) worker.Handler { return confirmVia(p) }

// Ledger is the state a run leaves behind, read back from the database and the provider.
type Ledger struct {
	Messages []outbox.Message
	Payments []outbox.Payment
	Calls    []provider.Call
	Refused  int64
}

// ReadLedger reads the final state of a run.
func ReadLedger(ctx context.Context, s *outbox.Store, p *provider.Provider) (Ledger, error) {
	msgs, err := s.Messages(ctx)
	if err != nil {
		return Ledger{}, err
	}
	pays, err := s.Payments(ctx)
	if err != nil {
		return Ledger{}, err
	}
	return Ledger{Messages: msgs, Payments: pays, Calls: p.Calls(), Refused: s.Refused()}, nil
}

// MaxRowsPerKey returns the most payment rows and the most outbox rows any one key has.
func (l Ledger) MaxRowsPerKey() (payments, messages int) {
	pc, mc := map[string]int{}, map[string]int{}
	for _, p := range l.Payments {
		pc[p.Key]++
		payments = max(payments, pc[p.Key])
	}
	for _, m := range l.Messages {
		mc[m.Key]++
		messages = max(messages, mc[m.Key])
	}
	return payments, messages
}

// DuplicateRows counts rows beyond the first per key, in payments and in the outbox.
func (l Ledger) DuplicateRows() (payments, messages int) {
	pk, mk := map[string]bool{}, map[string]bool{}
	for _, p := range l.Payments {
		if pk[p.Key] {
			payments++
		}
		pk[p.Key] = true
	}
	for _, m := range l.Messages {
		if mk[m.Key] {
			messages++
		}
		mk[m.Key] = true
	}
	return payments, messages
}

// ProviderSaid returns the provider's last successful answer for key, if any.
func (l Ledger) ProviderSaid(key string) (provider.Call, bool) {
	for i := len(l.Calls) - 1; i >= 0; i-- {
		if c := l.Calls[i]; c.Key == key && !c.Failed() {
			return c, true
		}
	}
	return provider.Call{}, false
}

// FakeSuccesses counts payments showing an outcome the provider never gave:
// Paid without the provider's Paid and transaction id, or Failed without its Declined.
func (l Ledger) FakeSuccesses() int {
	n := 0
	for _, p := range l.Payments {
		if p.Status == outbox.PendingConfirmation {
			continue
		}
		said, ok := l.ProviderSaid(p.Key)
		switch {
		case !ok:
			n++
		case p.Status == outbox.Paid && (said.Outcome != provider.Paid || said.TransactionID != p.ProviderTransactionID):
			n++
		case p.Status == outbox.Failed && said.Outcome != provider.Declined:
			n++
		}
	}
	return n
}

// TxIDs counts Paid payments carrying a provider-issued id, and payments in
// any other state that carry an id at all (which must be none).
func (l Ledger) TxIDs(p *provider.Provider) (paidWithID, otherWithID, paidWithout int) {
	for _, pay := range l.Payments {
		switch {
		case pay.Status == outbox.Paid && p.Issued(pay.Key, pay.ProviderTransactionID):
			paidWithID++
		case pay.Status == outbox.Paid:
			paidWithout++
		case pay.ProviderTransactionID != "":
			otherWithID++
		}
	}
	return paidWithID, otherWithID, paidWithout
}

// Message returns the outbox row for key (the first, if there are several).
func (l Ledger) Message(key string) (outbox.Message, bool) {
	i := slices.IndexFunc(l.Messages, func(m outbox.Message) bool { return m.Key == key })
	if i < 0 {
		return outbox.Message{}, false
	}
	return l.Messages[i], true
}

// Payment returns the payment row for key (the first, if there are several).
func (l Ledger) Payment(key string) (outbox.Payment, bool) {
	i := slices.IndexFunc(l.Payments, func(p outbox.Payment) bool { return p.Key == key })
	if i < 0 {
		return outbox.Payment{}, false
	}
	return l.Payments[i], true
}
