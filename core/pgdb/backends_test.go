package pgdb_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

// lockTestRun makes a run with a jobs table of one row.
func lockTestRun(t *testing.T) *pgdb.Run {
	t.Helper()
	ctx := context.Background()
	r, err := pgdb.CreateRunSchema(ctx, pgtest.URL(t), "terminate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Drop(context.Background()) })
	if _, err := r.DB.ExecContext(ctx, `CREATE TABLE jobs (id int PRIMARY KEY); INSERT INTO jobs VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	return r
}

// claimable counts the jobs another session can claim right now.
func claimable(t *testing.T, r *pgdb.Run) int {
	t.Helper()
	tx, err := r.DB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT id FROM jobs FOR UPDATE SKIP LOCKED`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n
}

// A session that never goes away by itself (a hung child, a lost network)
// holds its row lock until TerminateBackends ends it.
func TestTerminateBackendsFreesAHeldRowLock(t *testing.T) {
	ctx := context.Background()
	r := lockTestRun(t)
	holderURL := strings.TrimPrefix(r.ChildEnv("hung"), pgdb.EnvVar+"=")
	holder, err := pgdb.Open(ctx, holderURL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT id FROM jobs WHERE id = 1 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	if got := claimable(t, r); got != 0 {
		t.Fatalf("before: %d jobs claimable, want 0 (the row is locked)", got)
	}
	n, err := r.TerminateChild(ctx, "hung")
	if err != nil || n != 1 {
		t.Fatalf("TerminateChild = %d, %v; want 1 session ended", n, err)
	}
	if got := claimable(t, r); got != 1 {
		t.Errorf("after: %d jobs claimable, want 1", got)
	}
	// The run's own sessions survived (they are not the child's).
	if err := r.DB.PingContext(ctx); err != nil {
		t.Errorf("the run's own pool: %v", err)
	}
	if n, err := r.TerminateChild(ctx, "hung"); err != nil || n != 0 {
		t.Errorf("a second TerminateChild = %d, %v; want 0, nil", n, err)
	}
}

// A child killed with SIGKILL in the middle of a transaction: once
// TerminateChild returns, the row is claimable at once, without a sleep.
func TestTerminateAfterSIGKILLedChild(t *testing.T) {
	ctx := context.Background()
	r := lockTestRun(t)
	for round := 0; round < 3; round++ {
		child, _ := startChild(t, "lock-row-and-hang", r.ChildEnv("worker"))
		if got := claimable(t, r); got != 0 {
			t.Fatalf("round %d: %d jobs claimable while the child holds the row, want 0", round, got)
		}
		child.Process.Signal(syscall.SIGKILL)
		child.Wait()
		if _, err := r.TerminateChild(ctx, "worker"); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := claimable(t, r); got != 1 {
			t.Fatalf("round %d: %d jobs claimable after the kill, want 1", round, got)
		}
	}
}

func TestTerminatePIDs(t *testing.T) {
	ctx := context.Background()
	r := lockTestRun(t)
	conn, err := r.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var pid int
	conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid)
	start := time.Now()
	n, err := pgdb.TerminatePIDs(ctx, admin(t), pid)
	if err != nil || n != 1 {
		t.Fatalf("TerminatePIDs(%d) = %d, %v; want 1", pid, n, err)
	}
	if err := conn.PingContext(ctx); err == nil {
		t.Errorf("session %d still answers after %v", pid, time.Since(start))
	}
}

// Drop ends the sessions children left (a hung one holding a lock on a table
// of the schema), so it neither waits for them nor fails on its lock timeout.
func TestDropEndsChildSessions(t *testing.T) {
	ctx := context.Background()
	r, err := pgdb.CreateRunSchema(ctx, pgtest.URL(t), "drop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.DB.ExecContext(ctx, `CREATE TABLE jobs (id int PRIMARY KEY); INSERT INTO jobs VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	holder, err := pgdb.Open(ctx, strings.TrimPrefix(r.ChildEnv("hung"), pgdb.EnvVar+"="))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, _ := holder.BeginTx(ctx, nil)
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT id FROM jobs FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := r.Drop(ctx); err != nil {
		t.Fatalf("Drop: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Drop took %v: it waited for the child's lock", took)
	}
	if schemaExists(t, admin(t), r.Schema) {
		t.Errorf("schema %s still there", r.Schema)
	}
}
