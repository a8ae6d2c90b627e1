package keyedlog

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"outboxlab/core/backoff"
)

// TestRecovery fixes the handler after the consumer went idle, then recovers
// the way each design does, and checks the order records were applied in.
func TestRecovery(t *testing.T) {
	tests := []struct {
		name       string
		contain    Containment
		idempotent bool
		recover    func(ctx context.Context, c *Consumer) error
		wantSeen   string // every application, in order, across both phases
		wantHolds  int    // live holds at the end
	}{
		{"redrive puts a/2 at the end of the line, after a/3", DeadLetterOnly, true,
			func(ctx context.Context, c *Consumer) error { _, err := c.Redrive(ctx, "a"); return err },
			"a/1 c/1 b/1 c/2 c/3 b/2 a/3 b/3 a/2", 0},
		{"replay by correlation id applies a/2 then a/3", PoisonCorrelation, true,
			func(ctx context.Context, c *Consumer) error { return replayTwice(ctx, c, "a") },
			"a/1 c/1 b/1 c/2 c/3 b/2 b/3 a/2 a/3", 0},
		{"a consumer that is not idempotent applies the second replay again", PoisonCorrelation, false,
			func(ctx context.Context, c *Consumer) error { return replayTwice(ctx, c, "a") },
			"a/1 c/1 b/1 c/2 c/3 b/2 b/3 a/2 a/3 a/2 a/3", 0},
		{"resume replays the paused partition in offset order", PausePartition, true,
			func(ctx context.Context, c *Consumer) error { _, err := c.Resume(ctx, 0); return err },
			"a/1 c/1 b/1 c/2 c/3 a/2 b/2 a/3 b/3", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, clk := testLog(t)
			h := &breakable{map[string]bool{"a/2": true}}
			c := &Consumer{Store: s, Clock: clk, Handler: h, MaxAttempts: 3, Backoff: backoff.Backoff{Base: 200 * ms},
				Contain: tt.contain, Idempotent: tt.idempotent}
			if _, err := c.Drain(ctx, 100); err != nil {
				t.Fatal(err)
			}
			h.broken = nil
			clk.Advance(5 * time.Minute)
			if err := tt.recover(ctx, c); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Drain(ctx, 100); err != nil {
				t.Fatal(err)
			}
			if got := seen(t, s); got != tt.wantSeen {
				t.Errorf("applied %q, want %q", got, tt.wantSeen)
			}
			holds, _ := s.Holds(ctx)
			live := 0
			for _, h := range holds {
				if h.ReleasedAt.IsZero() {
					live++
				}
			}
			if live != tt.wantHolds {
				t.Errorf("%d live holds, want %d", live, tt.wantHolds)
			}
		})
	}
}

func replayTwice(ctx context.Context, c *Consumer, id string) error {
	if _, err := c.Replay(ctx, id); err != nil {
		return err
	}
	_, err := c.Replay(ctx, id)
	return err
}

func TestSecondReplayIsANoOp(t *testing.T) {
	ctx := context.Background()
	s, clk := testLog(t)
	h := &breakable{map[string]bool{"a/2": true}}
	c := &Consumer{Store: s, Clock: clk, Handler: h, MaxAttempts: 2, Contain: BlockKey, Idempotent: true}
	if _, err := c.Drain(ctx, 100); err != nil {
		t.Fatal(err)
	}
	// Before the fix a replay fails at a/2, stops, and keeps the key blocked.
	res, err := c.Replay(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || res.Applied != 0 || res.Released != 0 {
		t.Errorf("replay before the fix: failed %v, applied %d, released %d; want true, 0, 0", res.Failed, res.Applied, res.Released)
	}
	h.broken = nil
	first, err := c.Replay(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Replay(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if first.Applied != 2 || first.Duplicates != 0 || first.Released != 1 {
		t.Errorf("first replay: applied %d, duplicates %d, released %d; want 2, 0, 1", first.Applied, first.Duplicates, first.Released)
	}
	if second.Applied != 0 || second.Duplicates != 2 || second.Released != 0 {
		t.Errorf("second replay: applied %d, duplicates %d, released %d; want 0, 2, 0", second.Applied, second.Duplicates, second.Released)
	}
	apps, _ := s.Applications(ctx)
	replayed := 0
	for _, a := range apps {
		if a.Via == ViaReplay {
			replayed++
		}
	}
	if len(apps) != 9 || replayed != 2 {
		t.Errorf("%d applications (%d by replay), want 9 (2 by replay)", len(apps), replayed)
	}
}

func TestFailureEventsAreDeliveredOnce(t *testing.T) {
	ctx := context.Background()
	s, clk := testLog(t)
	c := &Consumer{Store: s, Clock: clk, Handler: &breakable{map[string]bool{"a/2": true, "c/1": true}},
		MaxAttempts: 1, Contain: PoisonCorrelation, Idempotent: true,
		FailureEvent: func(r Record) string { return r.Type + "Failed" }}
	if _, err := c.Drain(ctx, 100); err != nil {
		t.Fatal(err)
	}
	var got []string
	listen := func(_ context.Context, _ *sql.Tx, e FailureEvent, _ time.Time) (string, error) {
		got = append(got, e.Type+" "+e.CorrelationID)
		return "noted", nil
	}
	first, err := s.Deliver(ctx, clk.Now(), listen)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Deliver(ctx, clk.Now(), listen)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || len(second) != 0 || len(got) != 2 || got[0] != "TFailed c" || got[1] != "TFailed a" {
		t.Errorf("deliveries %d then %d, listener saw %q; want 2 then 0, [TFailed c, TFailed a]", len(first), len(second), got)
	}
	if c.HoldReads() != 9 {
		t.Errorf("%d hold reads, want 9 (one per record consumed)", c.HoldReads())
	}
}
