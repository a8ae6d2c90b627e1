package emission

import (
	"context"
	"errors"
	"testing"
	"time"

	"outboxlab/core/clock"
)

func insert(t *testing.T, s *Store, e NewEntry) Entry {
	t.Helper()
	ctx := context.Background()
	if e.EventType == "" {
		e.EventType, e.CorrelationID, e.DecisionReceiptID = "decision-receipt", "corr-"+e.Key, "DR-"+e.Key
		e.Provider, e.Region, e.Tenant, e.Workload, e.Payload = "acme", "eu-west", "tenant-a", "scoring", `{"x":1}`
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = clock.Start
	}
	if _, err := s.Insert(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := s.EntryByKey(ctx, e.Key)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestLegacyMaxRetryCountDefaultsToFiveAndSuppressesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if def, err := s.ColumnDefault(ctx, "MaxRetryCount"); err != nil || def != "5" {
			t.Fatalf("MaxRetryCount default = %q, %v; want 5", def, err)
		}
		a := insert(t, s, NewEntry{Key: "GOV-001", RetryCount: 7})
		b := insert(t, s, NewEntry{Key: "GOV-002", MaxRetryCount: 2, RetryCount: 2})
		if a.MaxRetryCount != 5 || b.MaxRetryCount != 2 {
			t.Fatalf("MaxRetryCount %d and %d, want 5 and 2", a.MaxRetryCount, b.MaxRetryCount)
		}
		due, err := s.Due(ctx, clock.Start, 10)
		if err != nil || len(due) != 2 {
			t.Fatalf("Due() = %d entries, %v; want both, whatever their RetryCount against MaxRetryCount", len(due), err)
		}
		claims, err := s.Claim(ctx, "w1", clock.Start, time.Second, 10)
		if err != nil || len(claims) != 2 {
			t.Fatalf("Claim() = %d claims, %v; want both", len(claims), err)
		}
	})
}

func TestClaimGateAndTokens(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		insert(t, s, NewEntry{Key: "GOV-001"})
		c1, err := s.Claim(ctx, "A", clock.Start, 30*time.Second, 1)
		if err != nil || len(c1) != 1 || c1[0].Token != 1 || c1[0].Entry.ClaimOwner != "A" {
			t.Fatalf("first claim = %+v, %v; want token 1 owned by A", c1, err)
		}
		if c, _ := s.Claim(ctx, "B", clock.Start.Add(30*time.Second), 30*time.Second, 1); len(c) != 0 {
			t.Fatal("B claimed while A's lease still ran (the lease ends after, not at, its last instant)")
		}
		if at, ok, _ := s.NextDue(ctx, clock.Start); !ok || !at.Equal(clock.Start.Add(30*time.Second)) {
			t.Fatalf("NextDue = %s, %v; want the lease end 09:00:30.000Z", clock.Stamp(at), ok)
		}
		c2, err := s.Claim(ctx, "B", clock.Start.Add(30*time.Second+time.Millisecond), 30*time.Second, 1)
		if err != nil || len(c2) != 1 || c2[0].Token != 2 {
			t.Fatalf("takeover = %+v, %v; want token 2", c2, err)
		}
		deliver := Transition{To: Delivered, At: clock.Start.Add(31 * time.Second)}
		if err := s.ApplyClaimed(ctx, c2[0], deliver); err != nil {
			t.Fatal(err)
		}
		stale := Transition{To: Failed, RetryCount: 1, NextRetryAt: clock.Start.Add(46 * time.Second), At: clock.Start.Add(45 * time.Second)}
		if err := s.ApplyClaimed(ctx, c1[0], stale); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("stale write with token 1 = %v, want ErrNotOwner", err)
		}
		e, _ := s.EntryByKey(ctx, "GOV-001")
		if e.Status != Delivered || e.RetryCount != 0 || e.ClaimOwner != "" || !e.ClaimLeaseUntil.IsZero() || e.ClaimToken != 2 {
			t.Errorf("after the refused write: %s RetryCount %d owner %q token %d; want Delivered 0, no owner, token 2", e.Status, e.RetryCount, e.ClaimOwner, e.ClaimToken)
		}
		if n, _ := s.RefusedTransitions(ctx); n != 1 || s.Refused() != 1 {
			t.Errorf("refusals logged %d, counted %d; want 1 and 1", n, s.Refused())
		}
		log, _ := s.Transitions(ctx)
		if len(log) != 2 || !log[0].Applied || log[1].Applied || log[1].ClaimToken != 1 || log[1].From != Delivered {
			t.Errorf("transition log %+v; want B's applied delivery, then A's refused write from Delivered with token 1", log)
		}
	})
}

func TestApplyByIdOverwritesATerminalRow(t *testing.T) {
	// The plain store's write assumes one drainer: it is keyed by Id alone.
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		e := insert(t, s, NewEntry{Key: "GOV-001"})
		if err := s.Apply(ctx, e.ID, "B", Transition{To: Delivered, At: clock.Start}); err != nil {
			t.Fatal(err)
		}
		late := Transition{To: Failed, RetryCount: 1, ErrorCode: "provider.timeout", NextRetryAt: clock.Start.Add(time.Second), At: clock.Start}
		if err := s.Apply(ctx, e.ID, "A", late); err != nil {
			t.Fatal(err)
		}
		got, _ := s.EntryByKey(ctx, "GOV-001")
		if got.Status != Failed || got.RetryCount != 1 || got.DeliveredAt.IsZero() {
			t.Errorf("after the late write: %s RetryCount %d delivered at %v; want Failed 1 with the old delivery time left behind", got.Status, got.RetryCount, got.DeliveredAt)
		}
	})
}

func TestTransitionsClearTheClaimAndTheNextRetry(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		insert(t, s, NewEntry{Key: "GOV-001"})
		c, _ := s.Claim(ctx, "A", clock.Start, time.Minute, 1)
		dl := Transition{To: DeadLettered, RetryCount: 5, ReasonCode: DefaultDeadLetterReasonCode, ReasonMessage: DefaultDeadLetterReasonMessage,
			ErrorCode: "provider.unavailable", At: clock.Start.Add(time.Second)}
		if err := s.ApplyClaimed(ctx, c[0], dl); err != nil {
			t.Fatal(err)
		}
		e, _ := s.EntryByKey(ctx, "GOV-001")
		if e.Status != DeadLettered || e.ClaimOwner != "" || !e.ClaimLeaseUntil.IsZero() || !e.NextRetryAt.IsZero() ||
			e.ReasonCode != DefaultDeadLetterReasonCode || e.LastErrorCode != "provider.unavailable" || !e.DeadLetteredAt.Equal(clock.Start.Add(time.Second)) {
			t.Errorf("dead-lettered row = %+v", e)
		}
		if _, ok, _ := s.NextDue(ctx, clock.Start); ok {
			t.Error("a terminal row still wakes the drain")
		}
	})
}

func TestQuarantineKeepsRetryHistoryAndRecordsTheDecision(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		e := insert(t, s, NewEntry{Key: "GOV-001", RetryCount: 8})
		r := Remediation{Action: "quarantine", Reviewer: "host-policy", Reason: "8 failures", Approval: "auto", Ticket: "INC-1"}
		if err := s.Quarantine(ctx, e.ID, clock.Start, r); err != nil {
			t.Fatal(err)
		}
		got, _ := s.EntryByKey(ctx, "GOV-001")
		recs, _ := s.Remediations(ctx)
		if got.Status != Quarantined || got.RetryCount != 8 || len(recs) != 1 || recs[0].RetryCountBefore != 8 || recs[0].RetryCountAfter != 8 {
			t.Errorf("quarantined %s RetryCount %d, remediations %+v; want Quarantined 8 with one record 8→8", got.Status, got.RetryCount, recs)
		}
		if err := s.Quarantine(ctx, e.ID, clock.Start, r); err == nil {
			t.Error("a terminal entry was quarantined twice")
		}
	})
}

func TestOpenMarksAGovernanceDatabase(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		var version string
		if err := s.DB().QueryRowContext(context.Background(), `SELECT Value FROM LabInfo WHERE Key = 'schema'`).Scan(&version); err != nil {
			t.Fatal(err)
		}
		if version != SchemaVersion {
			t.Errorf("LabInfo schema = %q, want %q", version, SchemaVersion)
		}
	})
}

// A stale owner is refused on every transition a claim-mode drain persists:
// once worker B has taken the entry over (token 2), worker A's write under
// token 1 changes nothing, is logged as refused and counted, and B, the
// owner, can still write the same transition.
func TestStaleOwnerIsRefusedOnEveryTransition(t *testing.T) {
	at := clock.Start.Add(45 * time.Second)
	tests := []struct {
		name string
		tr   Transition
	}{
		{"complete", Transition{To: Delivered, At: at}},
		{"retry", Transition{To: Failed, RetryCount: 1, ErrorCode: "provider.timeout", NextRetryAt: at.Add(time.Second), At: at}},
		{"defer", Transition{To: Deferred, NextRetryAt: at.Add(time.Minute), At: at}},
		{"dead-letter", Transition{To: DeadLettered, RetryCount: 5, ReasonCode: DefaultDeadLetterReasonCode,
			ReasonMessage: DefaultDeadLetterReasonMessage, ErrorCode: "provider.unavailable", At: at}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, s *Store) {
				ctx := context.Background()
				insert(t, s, NewEntry{Key: "GOV-001"})
				a, err := s.Claim(ctx, "A", clock.Start, 30*time.Second, 1)
				if err != nil || len(a) != 1 || a[0].Token != 1 {
					t.Fatalf("A's claim = %+v, %v; want token 1", a, err)
				}
				b, err := s.Claim(ctx, "B", clock.Start.Add(30*time.Second+time.Millisecond), 30*time.Second, 1)
				if err != nil || len(b) != 1 || b[0].Token != 2 {
					t.Fatalf("B's takeover = %+v, %v; want token 2", b, err)
				}
				if err := s.ApplyClaimed(ctx, a[0], tt.tr); !errors.Is(err, ErrNotOwner) {
					t.Fatalf("A's stale %s write = %v, want ErrNotOwner", tt.tr.To, err)
				}
				e, err := s.EntryByKey(ctx, "GOV-001")
				if err != nil {
					t.Fatal(err)
				}
				if e.Status != Pending || e.RetryCount != 0 || e.ClaimOwner != "B" || e.ClaimToken != 2 || !e.NextRetryAt.IsZero() ||
					e.ReasonCode != "" || e.LastErrorCode != "" || !e.DeliveredAt.IsZero() || !e.DeadLetteredAt.IsZero() {
					t.Errorf("after A's refused write the row reads %+v; want B's claim on a Pending row, nothing else written", e)
				}
				if n, err := s.RefusedTransitions(ctx); n != 1 || err != nil || s.Refused() != 1 {
					t.Errorf("refusals logged %d (%v), counted %d; want 1 and 1", n, err, s.Refused())
				}
				log, err := s.Transitions(ctx)
				if err != nil || len(log) != 1 || log[0].Applied || log[0].Actor != "A" || log[0].ClaimToken != 1 ||
					log[0].From != Pending || log[0].To != tt.tr.To {
					t.Fatalf("transition log %+v, %v; want one refused row: A, token 1, Pending → %s", log, err, tt.tr.To)
				}
				if err := s.ApplyClaimed(ctx, b[0], tt.tr); err != nil {
					t.Fatalf("B's %s write as the owner: %v", tt.tr.To, err)
				}
				if e, _ := s.EntryByKey(ctx, "GOV-001"); e.Status != tt.tr.To || e.RetryCount != tt.tr.RetryCount {
					t.Errorf("after B's write: %s RetryCount %d, want %s %d", e.Status, e.RetryCount, tt.tr.To, tt.tr.RetryCount)
				}
			})
		})
	}
}

func TestRetryableFailureIsLiveAndDueAgain(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		e := insert(t, s, NewEntry{Key: "GOV-001"})
		rf := Transition{To: RetryableFailure, RetryCount: 1, ErrorCode: "provider.throttled", NextRetryAt: clock.Start.Add(time.Second), At: clock.Start}
		if err := s.Apply(ctx, e.ID, "drain", rf); err != nil {
			t.Fatal(err)
		}
		if due, _ := s.Due(ctx, clock.Start, 10); len(due) != 0 {
			t.Fatalf("due before its retry time: %d entries", len(due))
		}
		due, err := s.Due(ctx, clock.Start.Add(time.Second), 10)
		if err != nil || len(due) != 1 || due[0].Status != RetryableFailure || due[0].RetryCount != 1 {
			t.Fatalf("Due at its retry time = %+v, %v; want GOV-001 RetryableFailure 1", due, err)
		}
		claims, err := s.Claim(ctx, "w", clock.Start.Add(time.Second), time.Minute, 10)
		if err != nil || len(claims) != 1 {
			t.Fatalf("Claim = %d claims, %v; want the RetryableFailure entry", len(claims), err)
		}
		if counts, _ := s.Counts(ctx); counts[RetryableFailure] != 1 {
			t.Errorf("Counts = %v", counts)
		}
	})
}
