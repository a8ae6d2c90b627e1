package keyedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

const ms = time.Millisecond

// seenSchema is the business table of the tests: every applied record, in order.
const seenSchema = `CREATE TABLE IF NOT EXISTS Seen (Id INTEGER PRIMARY KEY, MessageId TEXT NOT NULL) STRICT;`

// testLog is three entities on two partitions: a and b share partition 0, c
// has partition 1. Each has sequences 1..3, each depending on the one before.
func testLog(t *testing.T) (*Store, *clock.ScenarioClock) {
	t.Helper()
	return testLogAt(t, dialect.File(filepath.Join(t.TempDir(), "ordered.db")))
}

// testLogAt is testLog on the database at location (a SQLite file or a
// PostgreSQL schema's URL).
func testLogAt(t *testing.T, location dialect.Database) (*Store, *clock.ScenarioClock) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, location, seenSchema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreatePartitions(ctx, 2); err != nil {
		t.Fatal(err)
	}
	clk := clock.New()
	for seq := 1; seq <= 3; seq++ {
		for _, key := range []string{"a", "b", "c"} {
			p := 0
			if key == "c" {
				p = 1
			}
			_, err := s.Append(ctx, NewRecord{Partition: p, MessageID: fmt.Sprintf("%s/%d", key, seq), Key: key,
				CorrelationID: key, Type: "T", Sequence: seq, DependsOn: seq - 1}, clk.Now())
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return s, clk
}

// breakable applies a record by inserting it into Seen, and fails every
// record whose MessageId is in broken.
type breakable struct{ broken map[string]bool }

func (b *breakable) Apply(ctx context.Context, tx *sql.Tx, r Record, _ time.Time) (string, error) {
	if b.broken[r.MessageID] {
		return "", errors.New("bug in handler")
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO Seen (MessageId) VALUES (?)`, r.MessageID)
	return "seen", err
}

func seen(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.DB().Query(`SELECT MessageId FROM Seen ORDER BY Id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return strings.Join(out, " ")
}

func ids(records []Record) string {
	var out []string
	for _, r := range records {
		out = append(out, r.MessageID)
	}
	return strings.Join(out, " ")
}

func setAsideIDs(items []SetAside) string {
	var out []string
	for _, it := range items {
		out = append(out, it.Record.MessageID)
	}
	return strings.Join(out, " ")
}

func TestContainment(t *testing.T) {
	tests := []struct {
		name       string
		contain    Containment
		dependsOn  bool
		wantSeen   string // applied before the fix, in order
		wantDead   string
		wantParked string
		wantWait   string // records a paused partition holds back
		wantHolds  string
		wantEnd    time.Duration // scenario time when the consumer went idle
	}{
		{"dead-letter only lets a/3 run without a/2", DeadLetterOnly, false,
			"a/1 c/1 b/1 c/2 c/3 b/2 a/3 b/3", "a/2", "", "", "", 602 * ms},
		{"poisoned correlation id parks a/3", PoisonCorrelation, false,
			"a/1 c/1 b/1 c/2 c/3 b/2 b/3", "a/2", "a/3", "", "correlation a", 602 * ms},
		{"blocked key parks a/3", BlockKey, false,
			"a/1 c/1 b/1 c/2 c/3 b/2 b/3", "a/2", "a/3", "", "key a", 602 * ms},
		{"paused partition stops b too", PausePartition, false,
			"a/1 c/1 b/1 c/2 c/3", "", "", "a/2 b/2 a/3 b/3", "partition 0", 602 * ms},
		{"dependsOn parks a/3 without any hold", DeadLetterOnly, true,
			"a/1 c/1 b/1 c/2 c/3 b/2 b/3", "a/2", "a/3", "", "", 602 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, clk := testLog(t)
			c := &Consumer{Store: s, Clock: clk, Handler: &breakable{map[string]bool{"a/2": true}},
				MaxAttempts: 3, Backoff: backoff.Backoff{Base: 200 * ms}, Contain: tt.contain, DependsOn: tt.dependsOn, Idempotent: true}
			if _, err := c.Drain(ctx, 100); err != nil {
				t.Fatal(err)
			}
			if got := seen(t, s); got != tt.wantSeen {
				t.Errorf("applied %q, want %q", got, tt.wantSeen)
			}
			dead, _ := s.DeadLetters(ctx)
			parked, _ := s.Parked(ctx)
			waiting, _ := s.Waiting(ctx)
			if got := setAsideIDs(dead); got != tt.wantDead {
				t.Errorf("dead letters %q, want %q", got, tt.wantDead)
			}
			if got := setAsideIDs(parked); got != tt.wantParked {
				t.Errorf("parked %q, want %q", got, tt.wantParked)
			}
			if got := ids(waiting); got != tt.wantWait {
				t.Errorf("waiting %q, want %q", got, tt.wantWait)
			}
			holds, _ := s.Holds(ctx)
			var hs []string
			for _, h := range holds {
				hs = append(hs, h.Scope+" "+h.Value)
			}
			if got := strings.Join(hs, ", "); got != tt.wantHolds {
				t.Errorf("holds %q, want %q", got, tt.wantHolds)
			}
			if got := clk.Now().Sub(clock.Start); got != tt.wantEnd {
				t.Errorf("idle at +%s, want +%s", got, tt.wantEnd)
			}
			if len(dead) == 1 && dead[0].Attempts != 3 {
				t.Errorf("dead letter after %d attempts, want 3", dead[0].Attempts)
			}
		})
	}
}

func TestRetriesWaitInPlace(t *testing.T) {
	ctx := context.Background()
	s, clk := testLog(t)
	c := &Consumer{Store: s, Clock: clk, Handler: &breakable{map[string]bool{"a/2": true}},
		MaxAttempts: 3, Backoff: backoff.Backoff{Base: 200 * ms}, Idempotent: true}
	events, err := c.Drain(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		if e.Record.MessageID == "a/2" {
			got = append(got, fmt.Sprintf("%s %s attempt %d", clock.Stamp(e.At), e.Kind, e.Attempt))
		}
	}
	want := []string{
		"09:00:00.000Z retrying attempt 1",
		"09:00:00.201Z retrying attempt 2",
		"09:00:00.602Z dead-lettered attempt 3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("a/2 attempts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// b/2 sits behind a/2 in partition 0: it waits out both backoffs.
	for _, e := range events {
		if e.Record.MessageID == "b/2" && e.Kind == Applied && clock.Stamp(e.At) != "09:00:00.602Z" {
			t.Errorf("b/2 applied at %s, want 09:00:00.602Z, right after a/2 left the head", clock.Stamp(e.At))
		}
	}
}

// errPermanent marks the failures no retry cures in TestPermanentFailures.
var errPermanent = errors.New("permanent")

// flaky fails a record whose MessageId is in permanent with errPermanent,
// every time, and one in transient with a plain error the first n times.
type flaky struct {
	permanent map[string]bool
	transient map[string]int
}

func (f *flaky) Apply(ctx context.Context, tx *sql.Tx, r Record, _ time.Time) (string, error) {
	if f.permanent[r.MessageID] {
		return "", fmt.Errorf("rejected: %w", errPermanent)
	}
	if f.transient[r.MessageID] > 0 {
		f.transient[r.MessageID]--
		return "", errors.New("timeout")
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO Seen (MessageId) VALUES (?)`, r.MessageID)
	return "seen", err
}

// TestPermanentFailures: with Permanent set, a permanent failure is
// dead-lettered on its first attempt, with no backoff for its partition to
// wait out, while a transient one is retried and applied; without it, the
// permanent one uses all its attempts.
func TestPermanentFailures(t *testing.T) {
	for _, tt := range []struct {
		name         string
		classify     bool
		wantAttempts int           // a/2's dead letter
		wantB2At     string        // b/2 waits behind a/2 on partition 0
		wantEnd      time.Duration // idle
	}{
		{"classified", true, 1, "09:00:00.000Z", 201 * ms},
		{"every failure retried", false, 3, "09:00:00.602Z", 602 * ms},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, clk := testLog(t)
			c := &Consumer{Store: s, Clock: clk, Handler: &flaky{map[string]bool{"a/2": true}, map[string]int{"c/2": 1}},
				MaxAttempts: 3, Backoff: backoff.Backoff{Base: 200 * ms}, Idempotent: true, Contain: PoisonCorrelation}
			if tt.classify {
				c.Permanent = func(err error) bool { return errors.Is(err, errPermanent) }
			}
			events, err := c.Drain(ctx, 100)
			if err != nil {
				t.Fatal(err)
			}
			dead, _ := s.DeadLetters(ctx)
			if got := setAsideIDs(dead); got != "a/2" {
				t.Fatalf("dead letters %q, want a/2 alone (c/2 is transient)", got)
			}
			if dead[0].Attempts != tt.wantAttempts {
				t.Errorf("a/2 dead-lettered after %d attempts, want %d", dead[0].Attempts, tt.wantAttempts)
			}
			if got := seen(t, s); !strings.Contains(got, "c/2") {
				t.Errorf("applied %q, want c/2 applied after its retry", got)
			}
			for _, e := range events {
				if e.Record.MessageID == "b/2" && e.Kind == Applied && clock.Stamp(e.At) != tt.wantB2At {
					t.Errorf("b/2 applied at %s, want %s", clock.Stamp(e.At), tt.wantB2At)
				}
			}
			if got := clk.Now().Sub(clock.Start); got != tt.wantEnd {
				t.Errorf("idle at +%s, want +%s", got, tt.wantEnd)
			}
		})
	}
}
