package wassal

import (
	"flag"
	"testing"

	"outboxlab/scenarios/scenariotest"
)

// TestMain lets the scenarios' child processes re-execute this test binary,
// and runs the tests with pgtest's PostgreSQL server.
func TestMain(m *testing.M) { scenariotest.Main(m) }

var (
	printScenario = flag.String("print", "", "TestPrintScenario prints this scenario's report")
	printArgs     = flag.String("print-args", "", "flags for -print")
	printPostgres = flag.Bool("print-postgres", false, "-print runs the scenario on PostgreSQL")
)
