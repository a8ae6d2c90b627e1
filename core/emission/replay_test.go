package emission

import (
	"context"
	"errors"
	"testing"
	"time"

	"outboxlab/core/clock"
)

func deadLetter(t *testing.T, s *Store, key string, retry int) Entry {
	t.Helper()
	e := insert(t, s, NewEntry{Key: key})
	dl := Transition{To: DeadLettered, RetryCount: retry, ReasonCode: DefaultDeadLetterReasonCode, ReasonMessage: DefaultDeadLetterReasonMessage, At: clock.Start}
	if err := s.Apply(context.Background(), e.ID, "drain", dl); err != nil {
		t.Fatal(err)
	}
	got, _ := s.EntryByKey(context.Background(), key)
	return got
}

func TestReplayNeedsAnAuthorizationAndKeepsTheOriginal(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		orig := deadLetter(t, s, "GOV-001", 5)
		auth := Remediation{Reviewer: "j.doe", Reason: "provider outage fixed", Approval: "CAB-1", Ticket: "INC-1",
			AffectedFrom: clock.Start, AffectedTo: clock.Start.Add(time.Minute),
			Cause: "provider unavailability", Fix: "provider healthy again (status page)"}
		for _, missing := range []func(*Remediation){
			func(r *Remediation) { r.Reviewer = "" }, func(r *Remediation) { r.Reason = " " },
			func(r *Remediation) { r.Approval = "" }, func(r *Remediation) { r.Ticket = "" },
		} {
			bad := auth
			missing(&bad)
			if _, err := s.Replay(ctx, orig.ID, clock.Start, bad); !errors.Is(err, ErrReplayNotAuthorized) {
				t.Errorf("Replay(%+v) = %v, want ErrReplayNotAuthorized", bad, err)
			}
		}
		for _, missing := range []func(*Remediation){
			func(r *Remediation) { r.Cause = "" }, func(r *Remediation) { r.Cause = "bad luck" },
			func(r *Remediation) { r.Fix = " " },
		} {
			bad := auth
			missing(&bad)
			if _, err := s.Replay(ctx, orig.ID, clock.Start, bad); !errors.Is(err, ErrReplayNoCause) {
				t.Errorf("Replay(cause %q, fix %q) = %v, want ErrReplayNoCause", bad.Cause, bad.Fix, err)
			}
		}
		if entries, _ := s.Entries(ctx); len(entries) != 1 {
			t.Fatalf("an unauthorized replay wrote %d entries", len(entries)-1)
		}
		if recs, _ := s.Remediations(ctx); len(recs) != 0 {
			t.Fatalf("refused replays wrote %d remediation records", len(recs))
		}
		r1, err := s.Replay(ctx, orig.ID, clock.Start.Add(time.Hour), auth)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := s.Replay(ctx, orig.ID, clock.Start.Add(time.Hour), auth)
		if err != nil {
			t.Fatal(err)
		}
		if r1.Key != "GOV-001-R1" || r2.Key != "GOV-001-R2" || r1.ReplayOf != orig.ID || r1.RetryCount != 0 || r1.Status != Pending ||
			r1.CorrelationID != orig.CorrelationID || r1.Payload != orig.Payload {
			t.Errorf("replays %+v, %+v", r1, r2)
		}
		after, _ := s.EntryByKey(ctx, "GOV-001")
		if after.Status != DeadLettered || after.RetryCount != 5 || after.ReasonCode != DefaultDeadLetterReasonCode {
			t.Errorf("original after replay: %s RetryCount %d reason %q; want it untouched", after.Status, after.RetryCount, after.ReasonCode)
		}
		recs, _ := s.Remediations(ctx)
		if len(recs) != 2 || recs[0].Action != ActionReplay || recs[0].ReplayEntryID != r1.ID || recs[0].RetryCountBefore != 5 ||
			recs[0].RetryCountAfter != 5 || !recs[0].AffectedTo.Equal(clock.Start.Add(time.Minute)) ||
			recs[0].Cause != "provider unavailability" || recs[0].Fix != auth.Fix {
			t.Errorf("remediations %+v", recs)
		}
		if _, err := s.Replay(ctx, r1.ID, clock.Start, auth); err == nil {
			t.Error("a live entry was replayed")
		}
	})
}

func TestIncidentsOpenPerDeadLetterAndCloseOnlyOnAReceipt(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		deadLetter(t, s, "GOV-001", 5)
		insert(t, s, NewEntry{Key: "GOV-002"})
		deadLetter(t, s, "GOV-003", 0)
		if n, err := s.OpenIncidents(ctx, clock.Start); err != nil || n != 2 {
			t.Fatalf("OpenIncidents() = %d, %v; want 2", n, err)
		}
		if n, _ := s.OpenIncidents(ctx, clock.Start); n != 0 {
			t.Fatalf("a second call opened %d more", n)
		}
		in, _ := s.Incidents(ctx)
		if err := s.CloseIncident(ctx, in[0].ID, clock.Start, "j.doe", ""); !errors.Is(err, ErrNoReceipt) {
			t.Fatalf("closing without a receipt = %v, want ErrNoReceipt", err)
		}
		if err := s.CloseIncident(ctx, in[0].ID, clock.Start, "j.doe", "RCPT-0001"); err != nil {
			t.Fatal(err)
		}
		in, _ = s.Incidents(ctx)
		if in[0].Open || in[0].ProviderReceipt != "RCPT-0001" || !in[1].Open {
			t.Errorf("incidents %+v", in)
		}
	})
}
