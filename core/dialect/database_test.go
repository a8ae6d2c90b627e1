package dialect_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"outboxlab/core/dblocation"
	"outboxlab/core/dialect"
	"outboxlab/internal/pgtest"
)

// A location is parsed once into a Database that carries its dialect: a
// URL in any letter case is PostgreSQL's (its scheme lower-cased), anything
// else a SQLite file; what is neither is refused.
func TestParseCarriesTheDialect(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		dialect  dialect.Dialect
		err      error
	}{
		{"POSTGRES://h/db", "postgres://h/db", dialect.Postgres, nil},
		{"postgresql://u@h/db", "postgresql://u@h/db", dialect.Postgres, nil},
		{"/tmp/x.db", "/tmp/x.db", dialect.SQLite, nil},
		{"postgres.db", "postgres.db", dialect.SQLite, nil},
		{"mysql://h/db", "", nil, dblocation.ErrNotPostgres},
		{"", "", nil, dblocation.ErrEmpty},
	} {
		db, err := dialect.Parse(tc.in)
		if !errors.Is(err, tc.err) || db.Dialect() != tc.dialect || db.String() != tc.want {
			t.Errorf("Parse(%q) = %v %q, %v; want %v %q, %v", tc.in, db.Dialect(), db.String(), err, tc.dialect, tc.want, tc.err)
		}
	}
	if _, err := (dialect.Database{}).Open(context.Background(), testVersion); err == nil {
		t.Error("the zero Database opened")
	}
}

// A file names no sessions; its held transaction is the write lock, which
// the probe finds while another connection holds it and not after.
func TestSQLiteProbeFindsTheWriteLock(t *testing.T) {
	ctx := context.Background()
	db := dialect.File(filepath.Join(t.TempDir(), "probe.db"))
	if named, name, err := db.Named("worker-1"); err != nil || name != "" || named != db {
		t.Fatalf("Named on a file = %v %q, %v; want the file unchanged, no name", named, name, err)
	}
	pool, err := db.Open(ctx, testVersion, `CREATE TABLE IF NOT EXISTS T (Id INTEGER PRIMARY KEY) STRICT;`)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	probe, err := db.OpenTxProbe(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	if held, _ := probe.Holds(ctx, ""); held {
		t.Fatal("a lock found before anyone took it")
	}
	tx, err := pool.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	if held, what := probe.Holds(ctx, ""); !held || what != "the database's write lock" {
		t.Errorf("Holds while a transaction is open = %v %q, want the write lock", held, what)
	}
	tx.Rollback()
	if held, _ := probe.Holds(ctx, ""); held {
		t.Error("a lock found after the transaction ended")
	}
}

// On PostgreSQL a Database named for a process opens sessions of that name,
// which the probe sees idle in transaction and EndSessions ends.
func TestPostgresNamedSessionsAreFoundAndEnded(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Database(t, "sessions")
	named, name, err := db.Named(db.SessionName() + "-worker-1")
	if err != nil || name == "" || named.SessionName() != name {
		t.Fatalf("Named = %q (reads %q), %v; want a session name", name, named.SessionName(), err)
	}
	lab, err := db.Open(ctx, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	probe, err := db.OpenTxProbe(ctx, lab)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	worker, err := named.Open(ctx, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Close()
	tx, err := worker.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT 1`); err != nil {
		t.Fatal(err)
	}
	if held, what := probe.Holds(ctx, name); !held || what != "an open transaction (idle in transaction)" {
		t.Errorf("Holds(%q) = %v %q, want its open transaction", name, held, what)
	}
	if held, _ := probe.Holds(ctx, name+"-other"); held {
		t.Error("another name's sessions hold the transaction")
	}
	if err := named.EndSessions(ctx, name); err != nil {
		t.Fatal(err)
	}
	if held, _ := probe.Holds(ctx, name); held {
		t.Error("the session still holds its transaction after EndSessions")
	}
	if err := tx.Commit(); err == nil {
		t.Error("a transaction of an ended session committed")
	}
}
