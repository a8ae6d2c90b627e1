package pgtest

import (
	"path/filepath"
	"testing"
)

// Backend is a database a store's tests run on.
type Backend struct {
	Name string // "sqlite" or "postgres"
	// Location makes a fresh database named name for the test and returns
	// where it is: a SQLite file in the test's temporary directory, or the
	// URL of a run schema on the test binary's server (dropped when the test
	// ends; the test is skipped where no PostgreSQL is installed).
	Location func(t testing.TB, name string) string
}

// Backends are SQLite and PostgreSQL, in that order.
var Backends = []Backend{
	{"sqlite", func(t testing.TB, name string) string { return filepath.Join(t.TempDir(), name+".db") }},
	{"postgres", func(t testing.TB, name string) string { return RunSchema(t, name).URL }},
}

// OnEach runs test once per backend, as subtests named for it. Only tests
// of packages whose TestMain calls Main may use it (see URL).
func OnEach(t *testing.T, test func(t *testing.T, on Backend)) {
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) { test(t, b) })
	}
}
