package cli

import (
	"os"
	"testing"

	"outboxlab/core/child"
	"outboxlab/internal/pgtest"
)

// TestMain lets scenarios that start child processes re-execute this test
// binary, and runs the tests with one throwaway PostgreSQL server for the
// --database tests (pgtest also unsets OUTBOXLAB_DATABASE).
func TestMain(m *testing.M) {
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	pgtest.Main(m)
}
