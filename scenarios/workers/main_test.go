package workers

import (
	"os"
	"testing"

	"outboxlab/core/child"
	"outboxlab/internal/pgtest"
)

// TestMain lets the process drains re-execute this test binary as a worker,
// and runs the tests with pgtest's PostgreSQL server.
func TestMain(m *testing.M) {
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	pgtest.Main(m)
}
