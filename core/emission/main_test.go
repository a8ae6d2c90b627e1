package emission

import (
	"context"
	"testing"

	"outboxlab/core/dialect"
	"outboxlab/internal/pgtest"
)

// TestMain stops the test binary's PostgreSQL server (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }

// eachBackend runs test on a fresh store on SQLite, then on a fresh schema
// of the test binary's PostgreSQL server (pgtest.OnEach).
func eachBackend(t *testing.T, test func(t *testing.T, s *Store)) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) { test(t, openStore(t, on.Database(t, "governance"))) })
}

// newStore is a store on a fresh SQLite file, for tests of what no
// statement decides (the policy, the drain's modes).
func newStore(t *testing.T) *Store {
	t.Helper()
	return openStore(t, pgtest.Backends[0].Database(t, "governance"))
}

func openStore(t *testing.T, db dialect.Database) *Store {
	t.Helper()
	s, err := Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
