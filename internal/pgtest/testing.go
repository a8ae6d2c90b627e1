package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"outboxlab/core/pgdb"
)

// One server per test binary, started by the first test that asks for it.
var (
	once    sync.Once
	shared  *Server
	err     error
	skipped atomic.Int32
)

// Main runs a package's tests and stops the shared server afterwards. Call it
// from TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }. It unsets
// OUTBOXLAB_DATABASE_URL and OUTBOXLAB_DATABASE so no test runs against a
// database from the caller's environment unless it sets one itself.
func Main(m *testing.M) {
	os.Unsetenv(pgdb.EnvVar)
	os.Unsetenv(pgdb.LegacyEnvVar)
	code := m.Run()
	if n := skipped.Load(); n > 0 {
		// One line for the whole binary (go test -v shows each skip too).
		fmt.Fprintf(os.Stderr, "pgtest: %d PostgreSQL tests skipped: %v\n", n, err)
	}
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// URL returns the superuser URL of the test binary's server, starting it on
// the first call. Where no PostgreSQL is installed the test is skipped with
// one line, except under CI=true, where that fails the test: CI must not pass
// by running none of these tests. Only tests of packages whose TestMain calls
// Main may use it (Main stops the server).
func URL(t testing.TB) string {
	t.Helper()
	s := Shared(t)
	return s.URL
}

// Shared is URL's server itself (its folder, its start time).
func Shared(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, err = Start() })
	switch {
	case errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true":
		skipped.Add(1)
		t.Skip("pgtest: skipped: " + err.Error())
	case err != nil:
		t.Fatalf("pgtest: %v", err)
	}
	return shared
}

// RunSchema makes a run schema for scenario on the shared server, as a lab
// run does, and drops it when the test ends.
func RunSchema(t testing.TB, scenario string) *pgdb.Run {
	t.Helper()
	r, err := pgdb.CreateRunSchema(context.Background(), URL(t), scenario)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Drop(context.Background()); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return r
}
