package keyedlog

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backends are the databases the store tests run on: a SQLite file and a
// PostgreSQL schema of the test binary's server.
var backends = []struct {
	name     string
	location func(t *testing.T) dialect.Database
}{
	{"sqlite", func(t *testing.T) dialect.Database { return dialect.File(filepath.Join(t.TempDir(), "ordered.db")) }},
	{"postgres", func(t *testing.T) dialect.Database { return pgtest.Database(t, "keyedlog-test") }},
}

// A consumer whose lease on a partition ran out while another consumer
// claimed it is refused every move of the partition: it cannot commit the
// offset, schedule a retry or pause it, and nothing moves; the new owner's
// commit goes through.
func TestStaleOwnerIsRefused(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, clk := testLogAt(t, b.location(t))
			t0 := clk.Now()
			lease := 30 * time.Second
			a, ok, err := s.ClaimPartition(ctx, 0, claim.Request{Owner: "consumer-a", Now: t0, Lease: lease})
			if err != nil || !ok {
				t.Fatalf("consumer-a's claim = %v, %v; want the partition", ok, err)
			}
			if a.Token != 1 || a.Attempt != 1 || a.NextOffset != 0 {
				t.Fatalf("consumer-a's claim = token %d, attempt %d, offset %d; want 1, 1, 0", a.Token, a.Attempt, a.NextOffset)
			}
			if _, ok, err := s.ClaimPartition(ctx, 0, claim.Request{Owner: "consumer-b", Now: t0.Add(lease)}); err != nil || ok {
				t.Fatalf("consumer-b's claim while a's lease runs = %v, %v; want refused", ok, err)
			}
			b, ok, err := s.ClaimPartition(ctx, 0, claim.Request{Owner: "consumer-b", Now: t0.Add(lease + time.Millisecond), Lease: lease})
			if err != nil || !ok {
				t.Fatalf("consumer-b's claim after a's lease = %v, %v; want the partition", ok, err)
			}
			if b.Token != 2 || b.Attempt != 2 || b.NextOffset != 0 {
				t.Fatalf("consumer-b's claim = token %d, attempt %d, offset %d; want 2, 2 (a's attempt counted), 0", b.Token, b.Attempt, b.NextOffset)
			}
			moves := []struct {
				name string
				move func(tx *sql.Tx) error
			}{
				{"commit the offset", func(tx *sql.Tx) error { return s.CommitOffsetTx(ctx, tx, a) }},
				{"schedule a retry", func(tx *sql.Tx) error { return s.RetryTx(ctx, tx, a, t0.Add(time.Second), "late") }},
				{"pause", func(tx *sql.Tx) error { return s.PauseTx(ctx, tx, a, "late", t0) }},
			}
			for _, m := range moves {
				if err := s.InTx(ctx, m.move); !errors.Is(err, claim.ErrNotOwner) {
					t.Errorf("stale consumer-a: %s = %v, want claim.ErrNotOwner", m.name, err)
				}
			}
			if got := s.Refused(); got != int64(len(moves)) {
				t.Errorf("refused transitions = %d, want %d", got, len(moves))
			}
			p := partition(t, s, 0)
			if p.NextOffset != 0 || p.HeadAttempts != 2 || p.Owner != "consumer-b" || !p.Paused.IsZero() || p.LastError != "" {
				t.Fatalf("partition 0 after the refused moves = %+v; want offset 0, 2 attempts, held by consumer-b, not paused", p)
			}
			if err := s.InTx(ctx, func(tx *sql.Tx) error { return s.CommitOffsetTx(ctx, tx, b) }); err != nil {
				t.Fatalf("consumer-b's commit: %v", err)
			}
			p = partition(t, s, 0)
			if p.NextOffset != 1 || p.HeadAttempts != 0 || p.Owner != "" {
				t.Errorf("partition 0 after consumer-b's commit = %+v; want offset 1, 0 attempts, no owner", p)
			}
			if err := s.InTx(ctx, func(tx *sql.Tx) error { return s.CommitOffsetTx(ctx, tx, b) }); !errors.Is(err, claim.ErrNotOwner) {
				t.Errorf("consumer-b's second commit on a settled claim = %v, want claim.ErrNotOwner", err)
			}
		})
	}
}

func partition(t *testing.T, s *Store, n int) Partition {
	t.Helper()
	parts, err := s.Partitions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return parts[n]
}

// takeOver is a handler during whose call another consumer takes the
// partition over: it moves the clock past the caller's lease and claims
// the partition through a second store, on its own connection.
type takeOver struct {
	other *Store
	clk   *clock.ScenarioClock
	lease time.Duration
	took  PartitionClaim
}

func (h *takeOver) Apply(ctx context.Context, tx *sql.Tx, r Record, now time.Time) (string, error) {
	if _, err := h.other.ExecTx(ctx, tx, `INSERT INTO Seen (MessageId) VALUES (?)`, r.MessageID); err != nil {
		return "", err
	}
	at := h.clk.Advance(h.lease + time.Millisecond)
	c, ok, err := h.other.ClaimPartition(ctx, r.Partition, claim.Request{Owner: "consumer-b", Now: at, Lease: h.lease})
	if err != nil || !ok {
		return "", errors.Join(err, errors.New("consumer-b could not take the partition over"))
	}
	h.took = c
	return "seen", nil
}

// A consumer whose claim is taken over while its handler runs is refused
// the commit: its step reports the refusal, the handler's change is rolled
// back with it and the record stays at the head for the new owner. Only on
// PostgreSQL: on SQLite the consumer's transaction holds the one write lock,
// so no other consumer can claim anything while a handler runs.
func TestConsumerRefusedMidRecordRollsBack(t *testing.T) {
	ctx := context.Background()
	location := pgtest.Database(t, "keyedlog-test")
	s, clk := testLogAt(t, location)
	other, err := Open(ctx, location, seenSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	h := &takeOver{other: other, clk: clk, lease: time.Second}
	c := &Consumer{Store: s, Clock: clk, Handler: h, Name: "consumer-a", Lease: h.lease, Idempotent: true}
	res, err := c.Step(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].Kind != Refused || res.Events[0].Record.MessageID != "a/1" {
		t.Fatalf("consumer-a's step = %+v, want one refused event for a/1", res.Events)
	}
	if got := seen(t, s); got != "" {
		t.Errorf("Seen after the refused step = %q, want nothing (the handler's change rolled back)", got)
	}
	p := partition(t, s, 0)
	if p.NextOffset != 0 || p.Owner != "consumer-b" || p.HeadAttempts != 2 {
		t.Errorf("partition 0 = %+v; want offset 0, held by consumer-b, 2 attempts", p)
	}
	if err := other.InTx(ctx, func(tx *sql.Tx) error { return other.CommitOffsetTx(ctx, tx, h.took) }); err != nil {
		t.Fatalf("consumer-b's commit: %v", err)
	}
	if p := partition(t, s, 0); p.NextOffset != 1 {
		t.Errorf("partition 0 after consumer-b's commit at offset %d, want 1", p.NextOffset)
	}
}
