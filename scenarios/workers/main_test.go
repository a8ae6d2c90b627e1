package workers

import (
	"os"
	"testing"

	"outboxlab/core/child"
)

// TestMain lets the process drains re-execute this test binary as a worker.
func TestMain(m *testing.M) {
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
