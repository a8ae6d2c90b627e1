package provider

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Op names of the ledger: a status check only reports, a charge moves money.
const (
	OpStatusCheck = "status-check"
	OpCharge      = "charge"
)

// ErrTimeout is the error of a call whose answer never came back: the caller
// cannot tell whether the provider acted on it.
var ErrTimeout = errors.New("provider call timed out")

// Charge asks the provider to take the payment for key, at scenario time at.
// It is the one call that moves money. The key's rule decides the answer
// (Paid with a transaction id, or Declined); FailFirst scripts the status API
// only, so a charge always reaches a decision. Every charge is recorded, so a
// second charge for the same key shows in the ledger; it gets the same
// transaction id back.
func (p *Provider) Charge(ctx context.Context, key string, amountCents int64, at time.Time) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	if amountCents <= 0 {
		return Answer{}, fmt.Errorf("charge for %s: amount must be positive, got %d", key, amountCents)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	a := Answer{Outcome: p.rule(key).Outcome}
	if a.Outcome == "" {
		a.Outcome = Paid
	}
	if a.Outcome == Paid {
		a.TransactionID = p.txIDFor(key)
	}
	p.calls = append(p.calls, Call{Seq: len(p.calls) + 1, At: at, Op: OpCharge, Key: key,
		Outcome: a.Outcome, TransactionID: a.TransactionID})
	return a, nil
}

// txIDFor returns key's transaction id, issuing the next one on first use,
// numbered the way CheckStatus numbers them. The caller holds p.mu.
func (p *Provider) txIDFor(key string) string {
	id, ok := p.txIDs[key]
	if !ok {
		id = fmt.Sprintf("PRV-TX-%04d", len(p.txIDs)+1)
		p.txIDs[key] = id
	}
	return id
}

// Charges returns how many charges the ledger holds for key.
func (p *Provider) Charges(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.calls {
		if c.Op == OpCharge && c.Key == key {
			n++
		}
	}
	return n
}
