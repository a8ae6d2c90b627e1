package outbox_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/internal/pgtest"
)

// claimRecord is one claim a racing worker got, and what became of its completion.
type claimRecord struct {
	outbox.Claim
	From      time.Time // the claim's now: the lease window is [From, LeaseUntil]
	Completed bool      // the owner-checked Processed transition committed
	Refused   bool      // it was refused: another claim had taken the message over
}

// claimLog is shared by the racing workers.
type claimLog struct {
	mu      sync.Mutex
	records []*claimRecord
}

func (l *claimLog) add(r *claimRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
}

const (
	raceMessages = 200
	raceWorkers  = 6
	raceLease    = time.Second
	stallPercent = 10 // claims whose worker stalls past its lease before completing
)

// Several goroutine workers, each on its own connection pool like separate
// processes, claim from one outbox at once with the real Claim: on SQLite
// in BEGIN IMMEDIATE transactions, on PostgreSQL in READ COMMITTED ones
// with FOR UPDATE SKIP LOCKED. Some stall past their lease, so others take
// their messages over. Every claim is recorded; afterwards no two lease
// windows of a message overlap, tokens are a gapless sequence, and exactly
// one completion per message committed: the one of its last claim.
func TestRacingWorkersNeverOwnAMessageTogether(t *testing.T) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) { raceOn(t, on.Database(t, "outbox")) })
}

func raceOn(t *testing.T, path dialect.Database) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	ctx := context.Background()
	seedRaceOutbox(t, path)
	clk := clock.New()
	log := &claimLog{}

	errs := make([]error, raceWorkers)
	refused := make([]int64, raceWorkers)
	var wg sync.WaitGroup
	for w := range raceWorkers {
		wg.Go(func() {
			store, err := outbox.OpenExisting(ctx, path)
			if err != nil {
				errs[w] = err
				return
			}
			defer store.Close()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			errs[w] = raceWorker(ctx, store, fmt.Sprintf("w%d", w), clk, rng, log)
			refused[w] = store.Refused()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	byMessage := map[int64][]*claimRecord{}
	takeovers, refusals := 0, 0
	for _, r := range log.records {
		byMessage[r.MessageID] = append(byMessage[r.MessageID], r)
		if r.Refused {
			refusals++
		}
	}
	for id, claims := range byMessage {
		slices.SortFunc(claims, func(a, b *claimRecord) int { return int(a.Token - b.Token) })
		takeovers += len(claims) - 1
		for _, p := range claimSequenceProblems(id, claims) {
			t.Error(p)
		}
	}
	checkFinalRows(t, path, byMessage)
	if storeRefused := sum(refused); storeRefused != int64(refusals) {
		t.Errorf("stores counted %d refused transitions, the workers saw %d", storeRefused, refusals)
	}
	t.Logf("%d claims by %d workers on %d messages: %d takeovers after a lapsed lease, %d completions refused",
		len(log.records), raceWorkers, raceMessages, takeovers, refusals)
	if takeovers == 0 {
		t.Errorf("no message was ever taken over: the stalls never let two workers compete for one message")
	}
}

func seedRaceOutbox(t *testing.T, path dialect.Database) {
	t.Helper()
	ctx := context.Background()
	s, err := outbox.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	schema := `CREATE TABLE RaceEffects (MessageId INTEGER NOT NULL, Worker TEXT NOT NULL, ClaimToken INTEGER NOT NULL) STRICT`
	if s.Dialect() == dialect.Postgres {
		if schema, err = dialect.PostgresDDL(schema); err != nil {
			t.Fatal(err)
		}
	}
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return err
		}
		for i := 1; i <= raceMessages; i++ {
			_, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: fmt.Sprintf("MSG-%03d", i), Type: "Race",
				CreatedAt: clock.Start})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func sum(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

// raceWorker claims and completes until no message is live. The business
// row and the Processed transition commit together, or not at all.
func raceWorker(ctx context.Context, store *outbox.Store, id string, clk *clock.ScenarioClock, rng *rand.Rand, log *claimLog) error {
	for {
		now := clk.Now()
		claims, err := store.Claim(ctx, id, now, raceLease, 1+rng.IntN(3))
		if err != nil {
			return err
		}
		if len(claims) == 0 {
			counts, err := store.Counts(ctx)
			if err != nil {
				return err
			}
			if counts[outbox.Pending]+counts[outbox.Processing] == 0 {
				return nil
			}
			// What is left is leased by others: let scenario time pass.
			clk.Advance(raceLease / 4)
			time.Sleep(time.Millisecond)
			continue
		}
		for _, c := range claims {
			r := &claimRecord{Claim: c, From: now}
			log.add(r)
			if rng.IntN(100) < stallPercent {
				// A slow worker: its lease lapses while it works, and the others get real time to notice.
				clk.AdvanceTo(c.LeaseUntil.Add(time.Millisecond))
				time.Sleep(2 * time.Millisecond)
			}
			err := store.InTx(ctx, func(tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO RaceEffects (MessageId, Worker, ClaimToken) VALUES ($1, $2, $3)`,
					c.MessageID, c.Worker, c.Token); err != nil {
					return fmt.Errorf("record effect: %w", err)
				}
				return store.CompleteTx(ctx, tx, c, clk.Now())
			})
			switch {
			case err == nil:
				r.Completed = true
			case errors.Is(err, outbox.ErrNotOwner):
				r.Refused = true
			default:
				return err
			}
		}
	}
}

// claimSequenceProblems checks one message's claims, sorted by token: a
// gapless token sequence, disjoint lease windows, and only the last claim completed.
func claimSequenceProblems(id int64, claims []*claimRecord) []string {
	var p []string
	for i, c := range claims {
		if c.Token != int64(i+1) || c.Attempt != i+1 {
			p = append(p, fmt.Sprintf("message %d: claim %d has token %d attempt %d, want %d and %d (no gap, no repeat)",
				id, i+1, c.Token, c.Attempt, i+1, i+1))
		}
		if i == 0 {
			continue
		}
		prev := claims[i-1]
		if !c.From.After(prev.LeaseUntil) {
			p = append(p, fmt.Sprintf("message %d: %s claimed it at %s while %s's lease ran until %s",
				id, c.Worker, clock.Stamp(c.From), prev.Worker, clock.Stamp(prev.LeaseUntil)))
		}
		if prev.Completed || !prev.Refused {
			p = append(p, fmt.Sprintf("message %d: superseded claim %d by %s completed=%v refused=%v, want refused",
				id, prev.Token, prev.Worker, prev.Completed, prev.Refused))
		}
	}
	if last := claims[len(claims)-1]; !last.Completed {
		p = append(p, fmt.Sprintf("message %d: last claim %d by %s did not complete", id, last.Token, last.Worker))
	}
	return p
}

// The checker above must be able to fail: each row is a history a broken
// claim or a broken owner check would leave behind.
func TestClaimSequenceProblemsCatchBrokenHistories(t *testing.T) {
	at := func(ms int) time.Time { return clock.Start.Add(time.Duration(ms) * time.Millisecond) }
	claim := func(token int64, worker string, from int, completed bool) *claimRecord {
		return &claimRecord{Claim: outbox.Claim{MessageID: 7, Worker: worker, Token: token, Attempt: int(token),
			LeaseUntil: at(from + 1000)}, From: at(from), Completed: completed, Refused: !completed}
	}
	tests := []struct {
		name   string
		claims []*claimRecord
		want   int
	}{
		{"takeover after the lease", []*claimRecord{claim(1, "w1", 0, false), claim(2, "w2", 1001, true)}, 0},
		{"takeover inside the lease", []*claimRecord{claim(1, "w1", 0, false), claim(2, "w2", 1000, true)}, 1},
		{"two claims, one token", []*claimRecord{claim(1, "w1", 0, false), claim(1, "w2", 2000, true)}, 1},
		{"stale owner completed too", []*claimRecord{claim(1, "w1", 0, true), claim(2, "w2", 2000, true)}, 1},
		{"nobody completed", []*claimRecord{claim(1, "w1", 0, false)}, 1},
	}
	for _, tt := range tests {
		if got := claimSequenceProblems(7, tt.claims); len(got) != tt.want {
			t.Errorf("%s: %d problems %q, want %d", tt.name, len(got), got, tt.want)
		}
	}
}

// checkFinalRows checks the outbox and the effects table against the claims.
func checkFinalRows(t *testing.T, path dialect.Database, byMessage map[int64][]*claimRecord) {
	t.Helper()
	ctx := context.Background()
	s, err := outbox.OpenExisting(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs, err := s.Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		claims := byMessage[m.ID]
		if len(claims) == 0 {
			t.Errorf("%s was never claimed", m.Key)
			continue
		}
		last := claims[len(claims)-1]
		if m.Status != outbox.Processed || m.AttemptCount != len(claims) || m.ClaimToken != last.Token || m.LockedBy != "" {
			t.Errorf("%s: %s, %d attempts, token %d, locked by %q; want Processed, %d, %d, nobody",
				m.Key, m.Status, m.AttemptCount, m.ClaimToken, m.LockedBy, len(claims), last.Token)
		}
	}
	rows, err := s.DB().QueryContext(ctx, `SELECT MessageId, Worker, ClaimToken FROM RaceEffects`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	effects := map[int64]int{}
	for rows.Next() {
		var id, token int64
		var worker string
		if err := rows.Scan(&id, &worker, &token); err != nil {
			t.Fatal(err)
		}
		effects[id]++
		if claims := byMessage[id]; len(claims) == 0 || claims[len(claims)-1].Token != token || claims[len(claims)-1].Worker != worker {
			t.Errorf("message %d: effect committed by %s under token %d, not by its last claim", id, worker, token)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if effects[m.ID] != 1 {
			t.Errorf("%s: %d effects committed, want exactly 1", m.Key, effects[m.ID])
		}
	}
}
