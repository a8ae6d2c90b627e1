package cli

import (
	"os"
	"testing"

	"outboxlab/core/child"
)

// TestMain lets scenarios that start child processes re-execute this test binary.
func TestMain(m *testing.M) {
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
