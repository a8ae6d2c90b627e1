package pgtest

import (
	"path/filepath"
	"testing"

	"outboxlab/core/dblocation"
	"outboxlab/core/dialect"
)

// Backend is a database a store's tests run on.
type Backend struct {
	Name string // "sqlite" or "postgres"
	// Database makes a fresh database named name for the test: a SQLite
	// file in the test's temporary directory, or a run schema on the test
	// binary's server (dropped when the test ends; the test is skipped where
	// no PostgreSQL is installed).
	Database func(t testing.TB, name string) dialect.Database
}

// Backends are SQLite and PostgreSQL, in that order.
var Backends = []Backend{
	{"sqlite", func(t testing.TB, name string) dialect.Database {
		return dialect.File(filepath.Join(t.TempDir(), name+".db"))
	}},
	{"postgres", Database},
}

// Database is a fresh run schema named for name on the test binary's
// server, dropped when the test ends.
func Database(t testing.TB, name string) dialect.Database {
	t.Helper()
	loc, err := dblocation.ParsePostgres(RunSchema(t, name).URL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dialect.At(loc)
}

// OnEach runs test once per backend, as subtests named for it. Only tests
// of packages whose TestMain calls Main may use it (see URL).
func OnEach(t *testing.T, test func(t *testing.T, on Backend)) {
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) { test(t, b) })
	}
}

// ServerDatabase is the test binary's server as a Database: where a run's schemas
// go (scenarios.NewPostgresEnv), as the --database URL is.
func ServerDatabase(t testing.TB) dialect.Database {
	t.Helper()
	return Shared(t).Database()
}

// Database is the server as a Database (its superuser URL, parsed).
func (s *Server) Database() dialect.Database {
	db, err := dialect.Parse(s.URL)
	if err != nil {
		panic("pgtest: the server's own URL does not parse: " + err.Error())
	}
	return db
}

// Parse is dialect.Parse for a test: a location that does not parse fails it.
func Parse(t testing.TB, location string) dialect.Database {
	t.Helper()
	db, err := dialect.Parse(location)
	if err != nil {
		t.Fatalf("pgtest: parse %s: %v", dialect.File(location).Redacted(), err)
	}
	return db
}
