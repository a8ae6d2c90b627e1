package provider

import (
	"path/filepath"
	"testing"

	"outboxlab/internal/pgtest"
)

// TestMain stops the test binary's PostgreSQL server (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }

// backend is a database the ledger's tests run on: location makes a fresh
// one and returns where it is (a SQLite file, a PostgreSQL schema's URL).
type backend struct {
	name     string
	location func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "provider.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.RunSchema(t, "provider").URL }}, // skips without PostgreSQL
}

// onEachBackend runs test once per backend, as subtests named for it.
func onEachBackend(t *testing.T, test func(t *testing.T, on backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}
