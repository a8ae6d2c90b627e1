package wassal

import (
	"flag"
	"os"
	"testing"

	"outboxlab/core/child"
)

// TestMain lets the scenarios' child processes re-execute this test binary.
func TestMain(m *testing.M) {
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

var (
	printScenario = flag.String("print", "", "TestPrintScenario prints this scenario's report")
	printArgs     = flag.String("print-args", "", "flags for -print")
)
