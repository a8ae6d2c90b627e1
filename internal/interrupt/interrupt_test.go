package interrupt

import (
	"testing"

	"outboxlab/core/child"
)

// A lab child keeps the default signal actions: the name of the variable
// that marks one must be core/child's (it is copied, so that this package
// imports nothing of the lab's).
func TestChildVariableIsCoreChilds(t *testing.T) {
	if childVar != child.EnvVar {
		t.Fatalf("childVar = %q, core/child.EnvVar = %q", childVar, child.EnvVar)
	}
	if !Installed() {
		t.Error("init did not install the signal handling in a plain process")
	}
	if Context().Err() != nil {
		t.Error("the context is cancelled without a signal")
	}
}
