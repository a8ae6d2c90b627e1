package crashloop

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// completion is one row of CrashLoopCompletions: a Processed transition that committed.
type completion struct {
	worker        string
	token         int64
	transactionID string
	duplicate     bool
}

// outcome is what a drained lab's files say happened.
type outcome struct {
	processed, deadLettered int
	extraClaims             int // claims beyond each message's first: redeliveries after kills and retries
	stats                   provider.DurableStats
}

// verify reads a drained lab's outbox and provider ledger back and checks
// that every message reached its one right end exactly once.
func verify(t *testing.T, l *lab) outcome {
	t.Helper()
	ctx := context.Background()
	store, err := outbox.OpenExisting(ctx, l.worker.outboxDB)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	prov, err := provider.OpenDurable(ctx, l.worker.providerDB)
	if err != nil {
		t.Fatal(err)
	}
	defer prov.Close()
	for name, db := range map[string]*sql.DB{"outbox": store.DB(), "provider ledger": prov.DB()} {
		if store.Dialect() != dialect.SQLite {
			break // a file torn by a kill is SQLite's risk; the server keeps its own files whole
		}
		if res := integrityCheck(ctx, db); res != "ok" {
			t.Errorf("PRAGMA integrity_check on the %s = %q, want ok", name, res)
		}
	}

	msgs, err := store.Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != l.n {
		t.Fatalf("outbox holds %d messages, want %d", len(msgs), l.n)
	}
	completions, err := readCompletions(ctx, store.DB())
	if err != nil {
		t.Fatal(err)
	}
	deadLetters, err := deadLetterAudit(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	effects, err := prov.Effects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out outcome
	var problems []string
	for _, m := range msgs {
		out.extraClaims += m.AttemptCount - 1
		if m.LockedBy != "" || !m.LockedUntil.IsZero() {
			problems = append(problems, fmt.Sprintf("%s (%s) still leased by %q until %v", m.Key, m.Status, m.LockedBy, m.LockedUntil))
		}
		if isPoison(m.Key, l.worker.poisonEvery) {
			out.deadLettered++
			problems = append(problems, checkPoison(m, completions[m.ID], deadLetters[m.ID], effects[m.Key])...)
		} else {
			out.processed++
			problems = append(problems, checkHealthy(m, completions[m.ID], deadLetters[m.ID], effects[m.Key])...)
		}
	}
	if len(problems) > 0 {
		const show = 20
		t.Errorf("%d problem(s), the first ones:\n%s", len(problems), strings.Join(problems[:min(show, len(problems))], "\n"))
	}
	if out.stats, err = prov.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	if out.stats.DuplicateEffects != 0 || out.stats.Effects != out.processed {
		t.Errorf("provider effects = %d (%d duplicate), want %d: one per processed message",
			out.stats.Effects, out.stats.DuplicateEffects, out.processed)
	}
	return out
}

func checkHealthy(m outbox.Message, done []completion, deadLetters int, effects []string) []string {
	var p []string
	if m.Status != outbox.Processed || m.ProcessedAt.IsZero() {
		p = append(p, fmt.Sprintf("%s is %s after %d attempt(s), want Processed", m.Key, m.Status, m.AttemptCount))
	}
	if len(done) != 1 {
		return append(p, fmt.Sprintf("%s has %d committed completions, want exactly 1", m.Key, len(done)))
	}
	if done[0].token != m.ClaimToken {
		p = append(p, fmt.Sprintf("%s completed under token %d but its last claim is token %d", m.Key, done[0].token, m.ClaimToken))
	}
	if len(effects) != 1 || effects[0] != done[0].transactionID {
		p = append(p, fmt.Sprintf("%s: provider effects %v, completion recorded %s, want that one effect", m.Key, effects, done[0].transactionID))
	}
	if deadLetters != 0 {
		p = append(p, fmt.Sprintf("%s: %d dead-letter audit entries for a processed message", m.Key, deadLetters))
	}
	return p
}

func checkPoison(m outbox.Message, done []completion, deadLetters int, effects []string) []string {
	var p []string
	if m.Status != outbox.DeadLettered || m.DeadLetteredAt.IsZero() || m.LastError == "" {
		p = append(p, fmt.Sprintf("%s is %s (last error %q), want DeadLettered with its error", m.Key, m.Status, m.LastError))
	}
	if m.AttemptCount < maxAttempts {
		p = append(p, fmt.Sprintf("%s dead-lettered after %d attempts, below MaxAttempts %d", m.Key, m.AttemptCount, maxAttempts))
	}
	if deadLetters != 1 {
		p = append(p, fmt.Sprintf("%s has %d dead-letter audit entries, want exactly 1", m.Key, deadLetters))
	}
	if len(done) != 0 || len(effects) != 0 {
		p = append(p, fmt.Sprintf("%s never charges, yet has %d completions and effects %v", m.Key, len(done), effects))
	}
	return p
}

func readCompletions(ctx context.Context, db *sql.DB) (map[int64][]completion, error) {
	rows, err := db.QueryContext(ctx,
		`SELECT MessageId, Worker, ClaimToken, TransactionId, Duplicate FROM CrashLoopCompletions ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read completions: %w", err)
	}
	defer rows.Close()
	out := map[int64][]completion{}
	for rows.Next() {
		var id int64
		var c completion
		if err := rows.Scan(&id, &c.worker, &c.token, &c.transactionID, &c.duplicate); err != nil {
			return nil, fmt.Errorf("read completions: %w", err)
		}
		out[id] = append(out[id], c)
	}
	return out, rows.Err()
}

func deadLetterAudit(ctx context.Context, s *outbox.Store) (map[int64]int, error) {
	audit, err := s.Audit(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int64]int{}
	for _, e := range audit {
		if e.Action == "dead-lettered" {
			out[e.MessageID]++
		}
	}
	return out, nil
}

// integrityCheck returns PRAGMA integrity_check's answer: "ok" or the problems found.
func integrityCheck(ctx context.Context, db *sql.DB) string {
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err.Error()
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		return err.Error()
	}
	return strings.Join(lines, "; ")
}
