package dialect

import (
	"testing"

	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

// TestMain stops the test binary's PostgreSQL server (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }

const testVersion = "outboxlab/dialect-test"

// pgtestRun is a fresh run schema on the test server, dropped when the test ends.
func pgtestRun(t *testing.T) *pgdb.Run { return pgtest.RunSchema(t, "dialect") }
