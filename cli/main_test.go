package cli

import (
	"testing"

	"outboxlab/scenarios/scenariotest"
)

// TestMain lets scenarios that start child processes re-execute this test
// binary, and runs the tests with one throwaway PostgreSQL server for the
// --database tests (scenariotest.Main; pgtest also unsets OUTBOXLAB_DATABASE).
func TestMain(m *testing.M) { scenariotest.Main(m) }
