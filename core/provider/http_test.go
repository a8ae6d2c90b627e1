package provider

import (
	"context"
	"errors"
	"testing"
	"time"

	"outboxlab/core/clock"
)

func TestChargeIssuesIdsAndIsRecorded(t *testing.T) {
	ctx := context.Background()
	p := New(Rule{Outcome: Paid})
	p.Script("PAY-002", Rule{Outcome: Declined})
	p.Script("PAY-003", Rule{FailFirst: FailForever, Outcome: Paid})

	tests := []struct {
		key    string
		want   Outcome
		wantTx string
	}{
		{"PAY-001", Paid, "PRV-TX-0001"},
		{"PAY-002", Declined, ""},
		{"PAY-003", Paid, "PRV-TX-0002"}, // FailFirst scripts the status API, not charges
		{"PAY-001", Paid, "PRV-TX-0001"}, // charged twice: recorded twice, same id
	}
	for _, tt := range tests {
		a, err := p.Charge(ctx, tt.key, 1000, clock.Start)
		if err != nil || a.Outcome != tt.want || a.TransactionID != tt.wantTx {
			t.Errorf("Charge(%s) = %+v, %v; want %s %q", tt.key, a, err, tt.want, tt.wantTx)
		}
	}
	if got := p.Charges("PAY-001"); got != 2 {
		t.Errorf("Charges(PAY-001) = %d, want 2", got)
	}
	if a, _ := p.CheckStatus(ctx, "PAY-001", clock.Start); a.TransactionID != "PRV-TX-0001" {
		t.Errorf("status check after the charge gave %q, want the charge's id PRV-TX-0001", a.TransactionID)
	}
	if _, err := p.Charge(ctx, "PAY-009", 0, clock.Start); err == nil {
		t.Error("a charge of 0 cents was accepted")
	}
}

func TestServedProviderLosesScriptedAnswersButKeepsTheCharge(t *testing.T) {
	ctx := context.Background()
	p := New(Rule{Outcome: Paid})
	p.Script("PAY-003", Rule{FailFirst: FailForever, Outcome: Paid})
	srv, err := Serve(p, []string{"PAY-002"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := NewClient(srv.URL)
	at := clock.Start.Add(1500 * time.Millisecond)

	if a, err := c.Charge(ctx, "PAY-001", 1000, at); err != nil || a.TransactionID != "PRV-TX-0001" {
		t.Fatalf("Charge(PAY-001) = %+v, %v; want Paid PRV-TX-0001", a, err)
	}
	_, err = c.Charge(ctx, "PAY-002", 1000, at)
	if !errors.Is(err, ErrTimeout) || err.Error() != "charge for PAY-002: provider call timed out (504)" {
		t.Fatalf("Charge(PAY-002) error = %v, want the lost answer as ErrTimeout", err)
	}
	if a, err := c.CheckStatus(ctx, "PAY-002", at); err != nil || a.TransactionID != "PRV-TX-0002" {
		t.Errorf("status of the lost charge = %+v, %v; want Paid PRV-TX-0002: the provider did take it", a, err)
	}
	_, remote := c.CheckStatus(ctx, "PAY-003", at)
	_, local := New(Rule{FailFirst: FailForever}).CheckStatus(ctx, "PAY-003", at)
	if !errors.Is(remote, ErrUnavailable) || remote.Error() != local.Error() {
		t.Errorf("remote failure %q, want ErrUnavailable with the in-process text %q", remote, local)
	}
	calls := p.Calls()
	if len(calls) != 4 || calls[1].Op != OpCharge || calls[1].Outcome != Paid || !calls[1].At.Equal(at) {
		t.Errorf("ledger %+v: want 4 calls, the lost charge recorded as Paid at scenario time", calls)
	}
}
