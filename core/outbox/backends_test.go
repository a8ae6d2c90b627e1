package outbox

import (
	"context"
	"testing"

	"outboxlab/internal/pgtest"
)

// TestMain stops the test binary's PostgreSQL server (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }

// backend is a database the tests run on (pgtest.Backends).
type backend = pgtest.Backend

// onEachBackend runs test on SQLite and on PostgreSQL, as subtests named for them.
func onEachBackend(t *testing.T, test func(t *testing.T, on backend)) { pgtest.OnEach(t, test) }

// newStore opens a store on a fresh database of on, closed when the test ends.
func newStore(t *testing.T, on backend) *Store {
	t.Helper()
	s, err := Open(context.Background(), on.Database(t, "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
