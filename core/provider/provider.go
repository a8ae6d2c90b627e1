// Package provider is the fake payment provider: scripted per key, and keeping
// a ledger of every call made to it.
package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Outcome is what the provider finally says about a payment.
type Outcome string

// The outcomes a status check can resolve to.
const (
	Paid     Outcome = "Paid"
	Declined Outcome = "Declined"
)

// FailForever as a Rule's FailFirst makes every status check for the key fail.
const FailForever = -1

// Rule scripts one key: the first FailFirst status checks fail, then the
// provider answers Outcome. With FailFirst = FailForever it never answers.
// Numbered failures name which status check of the key they were, so that
// no two failures of a key read alike.
type Rule struct {
	Outcome   Outcome
	FailFirst int
	Numbered  bool
}

// Answer is a successful status check.
type Answer struct {
	Outcome       Outcome
	TransactionID string // set only when Outcome is Paid
}

// ErrUnavailable is the error of a failed status check.
var ErrUnavailable = errors.New("provider unavailable")

// Call is one line of the provider's ledger.
type Call struct {
	Seq           int
	At            time.Time
	Op            string // "status-check"
	Key           string
	Outcome       Outcome // empty when the call failed
	TransactionID string
	Err           string
}

// Failed reports whether the call failed.
func (c Call) Failed() bool { return c.Err != "" }

// Provider is a scripted fake. Transaction ids come only from here, one per
// Paid key, and the same key always gets the same id back. Safe for
// concurrent use.
type Provider struct {
	mu     sync.Mutex
	def    Rule
	rules  map[string]Rule
	checks map[string]int
	txIDs  map[string]string
	calls  []Call
}

// New returns a provider that answers def for every key not scripted otherwise.
func New(def Rule) *Provider {
	return &Provider{def: def, rules: map[string]Rule{}, checks: map[string]int{}, txIDs: map[string]string{}}
}

// Script sets the rule for one key.
func (p *Provider) Script(key string, r Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules[key] = r
}

// Rule returns the rule that applies to key.
func (p *Provider) Rule(key string) Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rule(key)
}

func (p *Provider) rule(key string) Rule {
	if r, ok := p.rules[key]; ok {
		return r
	}
	return p.def
}

// CheckStatus asks the provider what became of the payment with key, at
// scenario time at. It never charges: it only reports.
func (p *Provider) CheckStatus(ctx context.Context, key string, at time.Time) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.rule(key)
	p.checks[key]++
	call := Call{Seq: len(p.calls) + 1, At: at, Op: "status-check", Key: key}
	if r.FailFirst == FailForever || p.checks[key] <= r.FailFirst {
		err := fmt.Errorf("status check for %s failed: %w (503)", key, ErrUnavailable)
		if r.Numbered {
			err = fmt.Errorf("status check %d for %s failed: %w (503)", p.checks[key], key, ErrUnavailable)
		}
		call.Err = err.Error()
		p.calls = append(p.calls, call)
		return Answer{}, err
	}
	a := Answer{Outcome: r.Outcome}
	if r.Outcome == Paid {
		id, ok := p.txIDs[key]
		if !ok {
			id = fmt.Sprintf("PRV-TX-%04d", len(p.txIDs)+1)
			p.txIDs[key] = id
		}
		a.TransactionID = id
	}
	call.Outcome, call.TransactionID = a.Outcome, a.TransactionID
	p.calls = append(p.calls, call)
	return a, nil
}

// Calls returns a copy of the ledger.
func (p *Provider) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// Issued reports whether the provider issued transaction id to key.
func (p *Provider) Issued(key, id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return id != "" && p.txIDs[key] == id
}
