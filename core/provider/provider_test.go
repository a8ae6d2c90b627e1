package provider

import (
	"context"
	"errors"
	"testing"

	"outboxlab/core/clock"
)

func TestScriptedAnswersAndLedger(t *testing.T) {
	ctx := context.Background()
	p := New(Rule{Outcome: Paid})
	p.Script("PAY-003", Rule{FailFirst: FailForever})
	p.Script("PAY-005", Rule{Outcome: Declined})
	p.Script("PAY-007", Rule{Outcome: Paid, FailFirst: 2})

	type step struct {
		key     string
		want    Outcome
		wantTx  string
		wantErr bool
	}
	steps := []step{
		{"PAY-001", Paid, "PRV-TX-0001", false},
		{"PAY-003", "", "", true},
		{"PAY-005", Declined, "", false},
		{"PAY-003", "", "", true},
		{"PAY-007", "", "", true},
		{"PAY-007", "", "", true},
		{"PAY-007", Paid, "PRV-TX-0002", false},
		{"PAY-001", Paid, "PRV-TX-0001", false}, // same key, same id: never a second charge
	}
	for i, s := range steps {
		a, err := p.CheckStatus(ctx, s.key, clock.Start)
		if (err != nil) != s.wantErr {
			t.Fatalf("call %d (%s): err = %v, wantErr %v", i+1, s.key, err, s.wantErr)
		}
		if err != nil && !errors.Is(err, ErrUnavailable) {
			t.Errorf("call %d: err = %v, want ErrUnavailable", i+1, err)
		}
		if a.Outcome != s.want || a.TransactionID != s.wantTx {
			t.Errorf("call %d (%s) = %+v, want %s %q", i+1, s.key, a, s.want, s.wantTx)
		}
	}
	calls := p.Calls()
	if len(calls) != len(steps) {
		t.Fatalf("ledger has %d calls, want %d", len(calls), len(steps))
	}
	failed := 0
	for _, c := range calls {
		if c.Failed() {
			failed++
		}
	}
	if failed != 4 {
		t.Errorf("ledger shows %d failed calls, want 4", failed)
	}
	if !p.Issued("PAY-007", "PRV-TX-0002") || p.Issued("PAY-001", "PRV-TX-0002") || p.Issued("PAY-005", "") {
		t.Error("Issued does not match the ids handed out")
	}
}
