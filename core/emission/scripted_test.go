package emission

import (
	"context"
	"testing"
	"time"

	"outboxlab/core/clock"
)

func TestScriptedPlaysStepsAndRepeatsTheLast(t *testing.T) {
	s := NewScripted()
	s.Script("GOV-001", Fail("provider.unavailable", "503"), Fail("provider.unavailable", "503"), Deliver())
	e := Entry{ID: 1, Key: "GOV-001"}
	var got []ResultKind
	for range 4 {
		r, err := s.Emit(context.Background(), e, clock.Start)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Kind)
	}
	want := []ResultKind{ResultFailed, ResultFailed, ResultDelivered, ResultDelivered}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("results %v, want %v", got, want)
		}
	}
	if n := s.CallsFor("GOV-001"); n != 4 || len(s.Calls()) != 4 {
		t.Errorf("ledger %d calls (%d for GOV-001), want 4", len(s.Calls()), n)
	}
	if r, ok := s.Receipt("GOV-001"); !ok || r != "RCPT-0001" {
		t.Errorf("Receipt(GOV-001) = %q, %v; want the one receipt of its first delivery", r, ok)
	}
	s.Script("GOV-002", Fail("x", ""))
	s.Emit(context.Background(), Entry{Key: "GOV-002"}, clock.Start)
	if r, ok := s.Receipt("GOV-002"); ok {
		t.Errorf("a failed emission has receipt %q", r)
	}
	if r, _ := s.Emit(context.Background(), Entry{Key: "GOV-999"}, clock.Start); r.Kind != ResultDelivered {
		t.Errorf("unscripted key gave %s, want delivered", r.Kind)
	}
}

func TestScriptText(t *testing.T) {
	s := NewScripted()
	s.Script("a", Fail("x", ""), Fail("x", ""), Fail("x", ""), Deliver())
	s.Script("b", Crash("boom"))
	s.Script("c", Reject("provider.payload_rejected", ""))
	s.Script("d", Defer(time.Second), Fail("x", ""), Throw("eof"))
	s.Script("e", Defer(time.Second), Fail("x", ""), Defer(time.Second), Fail("x", ""), Fail("x", ""))
	tests := map[string]string{
		"a": "failed (x) ×3, then delivered",
		"b": "panic (forever)",
		"c": "dead-letter (provider.payload_rejected)",
		"d": "deferred, then failed (x), then error (forever)",
		"e": "(deferred, failed (x)) ×2, then failed (x) (forever)",
		"z": "delivered",
	}
	for key, want := range tests {
		if got := s.ScriptText(key); got != want {
			t.Errorf("ScriptText(%s) = %q, want %q", key, got, want)
		}
	}
}

func TestSafeEmitTurnsErrorsAndPanicsIntoFailures(t *testing.T) {
	s := NewScripted()
	s.Script("err", Throw("connection reset"))
	s.Script("panic", Crash("nil map"))
	tests := []struct {
		key      string
		wantCode string
		wantHow  Unexpected
		wantMsg  string
	}{
		{"err", CodeUnexpectedError, UnexpectedError, "connection reset"},
		{"panic", CodePanic, UnexpectedPanic, "emitter panicked: nil map"},
		{"ok", "", Expected, ""},
	}
	for _, tt := range tests {
		res, how := SafeEmit(context.Background(), s, Entry{Key: tt.key}, clock.Start)
		if res.Code != tt.wantCode || how != tt.wantHow || res.Message != tt.wantMsg {
			t.Errorf("SafeEmit(%s) = %+v, %q; want code %q, %q, message %q", tt.key, res, how, tt.wantCode, tt.wantHow, tt.wantMsg)
		}
		if tt.wantHow != Expected && res.Kind != ResultFailed {
			t.Errorf("SafeEmit(%s) kind %s, want failed", tt.key, res.Kind)
		}
	}
}
