package workers

import (
	"testing"

	"outboxlab/scenarios/scenariotest"
)

// TestMain lets the process drains re-execute this test binary as a worker,
// and runs the tests with pgtest's PostgreSQL server (scenariotest.Main).
func TestMain(m *testing.M) { scenariotest.Main(m) }
