package outbox

import (
	"context"
	"path/filepath"
	"testing"

	"outboxlab/internal/pgtest"
)

// TestMain stops the test binary's PostgreSQL server (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }

// backend is a database the store's tests run on: location makes a fresh
// one and returns where it is (a SQLite file, a PostgreSQL schema's URL).
type backend struct {
	name     string
	location func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "outbox.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.RunSchema(t, "outbox").URL }}, // skips without PostgreSQL
}

// onEachBackend runs test once per backend, as subtests named for it.
func onEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// newStore opens a store on a fresh database of b, closed when the test ends.
func newStore(t *testing.T, b backend) *Store {
	t.Helper()
	return openAt(t, b.location(t))
}

// openAt opens another store on the database at location (a second worker).
func openAt(t *testing.T, location string) *Store {
	t.Helper()
	s, err := Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
