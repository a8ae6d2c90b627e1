package emission

import (
	"context"
	"path/filepath"
	"testing"

	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// eachBackend runs test on a fresh store on SQLite, then on a fresh schema
// of the test binary's PostgreSQL server.
func eachBackend(t *testing.T, test func(t *testing.T, s *Store)) {
	t.Run("sqlite", func(t *testing.T) { test(t, newStore(t)) })
	t.Run("postgres", func(t *testing.T) { test(t, newPostgresStore(t)) })
}

func newStore(t *testing.T) *Store {
	t.Helper()
	return openStore(t, filepath.Join(t.TempDir(), "governance.db"))
}

func newPostgresStore(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	run, err := pgdb.CreateRunSchema(ctx, pgtest.URL(t), "emission-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := run.Drop(ctx); err != nil {
			t.Error(err)
		}
	})
	return openStore(t, run.URL)
}

func openStore(t *testing.T, location string) *Store {
	t.Helper()
	s, err := Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
