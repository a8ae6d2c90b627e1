package claim

import (
	"context"
	"path/filepath"
	"testing"

	"outboxlab/core/dialect"
	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

// TestMain stops the test binary's PostgreSQL server (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }

// ddl is one test schema in each database's words.
type ddl struct{ sqlite, postgres string }

// backend makes a fresh database from a schema and returns a function that
// opens another Store on it (each its own pool, as a worker's would be),
// closed when the test ends.
type backend struct {
	name     string
	database func(t *testing.T, schema ddl) func() *Store
}

const testVersion = "outboxlab/claim-test"

var backends = []backend{
	{"sqlite", func(t *testing.T, schema ddl) func() *Store {
		path := filepath.Join(t.TempDir(), "lab.db")
		return func() *Store {
			s, err := Open(context.Background(), dialect.File(path), testVersion, schema.sqlite)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}},
	{"postgres", func(t *testing.T, schema ddl) func() *Store {
		run := pgtest.RunSchema(t, "claim") // skips the test without PostgreSQL
		return func() *Store {
			ctx := context.Background()
			db, err := pgdb.Open(ctx, run.URL)
			if err != nil {
				t.Fatal(err)
			}
			if err := dialect.OpenPostgres(ctx, db, testVersion, schema.postgres); err != nil {
				db.Close()
				t.Fatal(err)
			}
			s := OpenDB(db, dialect.Postgres)
			t.Cleanup(func() { s.Close() }) // before the run's schema is dropped
			return s
		}
	}},
}

// onEachDialect runs test once per backend, as subtests named for it.
func onEachDialect(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// postgres is the PostgreSQL backend, for tests of what only it has (row locks).
var postgres = backends[1]

// pgtestRun is a fresh run schema on the test server, dropped when the test ends.
func pgtestRun(t *testing.T) *pgdb.Run { return pgtest.RunSchema(t, "claim") }
