package wassal

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/internal/pgtest"
)

// openDesign opens a fresh database of on with design d, closed when the test ends.
func openDesign(t *testing.T, on pgtest.Backend, d outbox.Design) *outbox.Store {
	t.Helper()
	s, err := d.Open(context.Background(), on.Database(t, "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// outboxColumns reads the columns OutboxMessages really has, from the
// CREATE statement the database keeps (rebuilt from the catalog on PostgreSQL).
func outboxColumns(t *testing.T, s *outbox.Store) (cols []string, tables []string) {
	t.Helper()
	ts, err := s.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	colName := regexp.MustCompile(`(?m)^\s+"?(\w+)"?\s+(INTEGER|TEXT|BIGINT|integer|text|bigint)`)
	for _, tb := range ts {
		tables = append(tables, tb.Name)
		if tb.Name == "OutboxMessages" || tb.Name == "outboxmessages" {
			for _, m := range colName.FindAllStringSubmatch(tb.SQL, -1) {
				cols = append(cols, strings.ToLower(m[1]))
			}
		}
	}
	return cols, tables
}

// Each Day's store really has only the columns and tables that Day introduced.
func TestDayStoresHaveOnlyTheirDaysColumns(t *testing.T) {
	lower := func(ss ...string) []string {
		for i := range ss {
			ss[i] = strings.ToLower(ss[i])
		}
		return ss
	}
	day14 := lower("Id", "MessageKey", "Type", "Payload", "Status", "AttemptCount", "LockedBy", "CreatedAtUtc", "ProcessedAtUtc")
	day15 := lower("Id", "MessageKey", "Type", "Payload", "Status", "AttemptCount", "LockedBy", "LockedUntilUtc", "ClaimToken",
		"CreatedAtUtc", "ProcessedAtUtc")
	day16 := lower("Id", "MessageKey", "Type", "Payload", "Status", "AttemptCount", "MaxAttempts", "NextAttemptUtc", "LastError",
		"LockedBy", "LockedUntilUtc", "ClaimToken", "CreatedAtUtc", "ProcessedAtUtc", "DeadLetteredAtUtc")
	for _, tc := range []struct {
		day       int
		columns   []string
		audit     bool
		noOutbox  bool
		dead      bool // the Status CHECK admits DeadLettered
		nextAttmp bool
	}{
		{day: 13, noOutbox: true},
		{day: 14, columns: day14},
		{day: 15, columns: day15},
		{day: 16, columns: day16, dead: true},
		{day: 17, columns: day16, dead: true, audit: true},
	} {
		pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
			s := openDesign(t, on, Day(tc.day))
			cols, tables := outboxColumns(t, s)
			hasTable := func(name string) bool {
				return slices.ContainsFunc(tables, func(t string) bool { return strings.EqualFold(t, name) })
			}
			if tc.noOutbox {
				if hasTable("OutboxMessages") || !hasTable("Payments") {
					t.Errorf("Day %d tables %v, want Payments and no OutboxMessages", tc.day, tables)
				}
				return
			}
			if !slices.Equal(cols, tc.columns) {
				t.Errorf("Day %d OutboxMessages columns\n got %v\nwant %v", tc.day, cols, tc.columns)
			}
			if hasTable("AuditLog") != tc.audit {
				t.Errorf("Day %d tables %v, AuditLog wanted: %v", tc.day, tables, tc.audit)
			}
			if got := strings.Contains(Day(tc.day).Schema(), "'DeadLettered'"); got != tc.dead {
				t.Errorf("Day %d schema admits DeadLettered: %v, want %v", tc.day, got, tc.dead)
			}
		})
	}
}

// The Day 15 claim counts the attempt at claim time and ignores any backoff;
// its store cannot dead-letter (no DeadLettered before Day 16); a retry
// writes no LastError (no such column) and the message is claimable at once.
func TestDay15ClaimsRetriesAndCannotDeadLetter(t *testing.T) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
		ctx := context.Background()
		s := openDesign(t, on, Day(15))
		if _, err := s.Enqueue(ctx, outbox.NewMessage{Key: "PAY-003", Type: "ConfirmPayment", CreatedAt: clock.Start}); err != nil {
			t.Fatal(err)
		}
		c, ok := dayClaim(t, s, "w1", clock.Start)
		if !ok || c.Attempt != 1 || c.Token != 1 || c.MaxAttempts != 0 {
			t.Fatalf("claim = %+v (claimed %v), want attempt 1, token 1, no ceiling", c, ok)
		}
		if err := s.Retry(ctx, c, clock.Start.Add(time.Hour), "provider timeout"); err != nil {
			t.Fatal(err)
		}
		c2, ok := dayClaim(t, s, "w1", clock.Start.Add(time.Millisecond))
		if !ok || c2.Attempt != 2 {
			t.Fatalf("second claim = %+v (claimed %v), want attempt 2 at once: Day 15 has no backoff gate", c2, ok)
		}
		err := s.DeadLetter(ctx, c2, clock.Start.Add(2*time.Millisecond), "give up")
		if err == nil || errors.Is(err, outbox.ErrNotOwner) {
			t.Fatalf("dead-letter on Day 15 = %v, want an error naming the missing column", err)
		}
		msgs, err := s.Messages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 1 || msgs[0].Status != outbox.Processing || msgs[0].AttemptCount != 2 || msgs[0].LastError != "" {
			t.Errorf("row = %+v, want Processing, AttemptCount 2, no LastError", msgs)
		}
	})
}

// Day 16 dead-letters with LastError and writes no audit (it has no audit
// log); Day 17 audits the same transition.
func TestDay16DeadLettersWithoutAuditDay17Audits(t *testing.T) {
	for _, day := range []int{16, 17} {
		pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
			ctx := context.Background()
			s := openDesign(t, on, Day(day))
			dayEnqueue(t, s, "PAY-003")
			c, _ := dayClaim(t, s, "w1", clock.Start)
			if err := s.Retry(ctx, c, clock.Start.Add(200*time.Millisecond), "boom 1"); err != nil {
				t.Fatal(err)
			}
			if _, ok := dayClaim(t, s, "w1", clock.Start.Add(199*time.Millisecond)); ok {
				t.Fatal("claimed before NextAttemptUtc: Day 16's claim has the backoff gate")
			}
			c, ok := dayClaim(t, s, "w1", clock.Start.Add(201*time.Millisecond))
			if !ok || c.Attempt != 2 {
				t.Fatalf("claim after the backoff = %+v (claimed %v), want attempt 2", c, ok)
			}
			if err := s.DeadLetter(ctx, c, clock.Start.Add(202*time.Millisecond), "boom 2"); err != nil {
				t.Fatal(err)
			}
			msgs, err := s.Messages(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if msgs[0].Status != outbox.DeadLettered || msgs[0].LastError != "boom 2" || msgs[0].MaxAttempts != 3 {
				t.Errorf("row = %+v, want DeadLettered, LastError boom 2, MaxAttempts 3", msgs[0])
			}
			audit, err := s.Audit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[int]int{16: 0, 17: 1}[day]; len(audit) != want {
				t.Errorf("Day %d audit log has %d entries, want %d", day, len(audit), want)
			}
		})
	}
}

// The Day 14 naive worker marks, counts and completes without the columns
// Day 15 adds.
func TestDay14NaiveWorker(t *testing.T) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
		ctx := context.Background()
		s := openDesign(t, on, Day(14))
		if _, err := s.Enqueue(ctx, outbox.NewMessage{Key: "PAY-001", Type: "ConfirmPayment", CreatedAt: clock.Start}); err != nil {
			t.Fatal(err)
		}
		ids, err := naiveSelectPending(ctx, s, 5)
		if err != nil || len(ids) != 1 {
			t.Fatalf("pending = %v, %v; want one id", ids, err)
		}
		c, err := naiveMarkProcessing(ctx, s, ids[0], "worker-a")
		if err != nil || c.Attempt != 1 || c.Token != 0 {
			t.Fatalf("mark = %+v, %v; want attempt 1, token 0", c, err)
		}
		var changed bool
		err = s.InTx(ctx, func(tx *sql.Tx) error {
			changed, err = naiveCompleteTx(ctx, s, tx, c.MessageID, clock.Start.Add(time.Second))
			return err
		})
		if err != nil || !changed {
			t.Fatalf("naive complete = %v, %v", changed, err)
		}
		msgs, err := s.Messages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if msgs[0].Status != outbox.Processed || msgs[0].LockedBy != "" || msgs[0].AttemptCount != 1 {
			t.Errorf("row = %+v, want Processed, no owner, AttemptCount 1", msgs[0])
		}
	})
}

// Day 14's relay claims without a lease: a claimed message stays the
// claimer's (no second claim takes it, however late), only its owner can
// complete it, and there is nothing to wait for.
func TestDay14ClaimHasNoLease(t *testing.T) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
		ctx := context.Background()
		s := openDesign(t, on, Day(14))
		for i, k := range []string{"PAY-001", "PAY-002"} {
			if _, err := s.Enqueue(ctx, outbox.NewMessage{Key: k, Type: "ConfirmPayment", CreatedAt: clock.Start.Add(time.Duration(i) * time.Millisecond)}); err != nil {
				t.Fatal(err)
			}
		}
		c, ok := dayClaim(t, s, "relay-1", clock.Start)
		if !ok || c.Key != "PAY-001" || c.Attempt != 1 || c.Token != 0 {
			t.Fatalf("claim = %+v (claimed %v), want PAY-001, attempt 1, no token", c, ok)
		}
		late, ok := dayClaim(t, s, "relay-2", clock.Start.Add(time.Hour))
		if !ok || late.Key != "PAY-002" {
			t.Fatalf("a claim an hour later took %+v (claimed %v), want PAY-002: no lease hands PAY-001 back", late, ok)
		}
		stolen := c
		stolen.Worker = "relay-2"
		if err := s.Complete(ctx, stolen, clock.Start); !errors.Is(err, outbox.ErrNotOwner) {
			t.Errorf("completion by relay-2 of relay-1's claim = %v, want ErrNotOwner", err)
		}
		if err := s.Complete(ctx, c, clock.Start.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.NextWakeup(ctx, clock.Start); ok || err != nil {
			t.Errorf("NextWakeup = %v, %v; want nothing to wait for on Day 14", ok, err)
		}
		msgs, err := s.Messages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if msgs[0].Status != outbox.Processed || msgs[0].LockedBy != "" || msgs[1].Status != outbox.Processing || msgs[1].LockedBy != "relay-2" {
			t.Errorf("rows = %+v, want PAY-001 Processed with no owner, PAY-002 Processing under relay-2", msgs)
		}
	})
}

// dayEnqueue enqueues one message per key, a millisecond apart, each with
// three attempts.
func dayEnqueue(t *testing.T, s *outbox.Store, keys ...string) {
	t.Helper()
	for i, k := range keys {
		_, err := s.Enqueue(context.Background(), outbox.NewMessage{Key: k, Type: "ConfirmPayment", MaxAttempts: 3,
			CreatedAt: clock.Start.Add(time.Duration(i) * time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// dayClaim claims one message for worker at now, if one is claimable.
func dayClaim(t *testing.T, s *outbox.Store, worker string, now time.Time) (outbox.Claim, bool) {
	t.Helper()
	cs, err := s.Claim(context.Background(), worker, now, 30*time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		return outbox.Claim{}, false
	}
	return cs[0], true
}

// The course's last Day has the whole schema: its store's tables, as the
// database keeps them, are the full design's, statement for statement (the
// Days cut schema.sql; they spell nothing again).
func TestDay17IsTheWholeSchema(t *testing.T) {
	on := pgtest.Backends[0] // SQLite keeps each CREATE statement as it was written
	day, full := openDesign(t, on, Day(17)), openDesign(t, on, outbox.Full)
	got, err := day.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, err := full.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) < 3 {
		t.Fatalf("Day 17 has %d tables, the full schema %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].SQL != want[i].SQL {
			t.Errorf("Day 17's %s:\n%s\nwant schema.sql's %s:\n%s", got[i].Name, got[i].SQL, want[i].Name, want[i].SQL)
		}
	}
	if !strings.Contains(Day(15).Schema(), "CHECK (Status IN ('Pending', 'Processing', 'Processed'))") {
		t.Errorf("Day 15's OutboxMessages does not check the three statuses of Day 15:\n%s", Day(15).Schema())
	}
}
