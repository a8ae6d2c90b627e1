package grade

import (
	"strings"
	"testing"
)

func TestDay16GoodWorkerPasses(t *testing.T) {
	rep, stderr := gradeRun(t, "session-16", DefaultSeed, okWorker)
	if !rep.Passed() {
		t.Errorf("the good worker failed:\n%s\nstderr:\n%s", rep.Body(), stderr)
	}
	if testing.Verbose() {
		t.Log("\n" + rep.Body())
	}
	if n := strings.Count(rep.Body(), "## Checks —"); n != 1+DefaultVariations {
		t.Errorf("%d checks sections, want %d", n, 1+DefaultVariations)
	}
}
