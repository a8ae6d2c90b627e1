package grade

import (
	"strings"
	"testing"

	"outboxlab/core/report"
)

// TestVerdictAcrossRuns: a check a run did not exercise is judged where
// another run exercised it; one that no run exercised fails, naming why in
// each run.
func TestVerdictAcrossRuns(t *testing.T) {
	idle := report.Check{Name: "transient", Outcome: report.OutcomeNotExercised, Detail: "not exercised: no transient key"}
	held := report.Check{Name: "transient", Outcome: report.OutcomeHeld, Passed: true}
	var a acrossRuns
	if a.add("v1", idle) || !a.add("v2", held) {
		t.Fatal("add: want v1 not exercised, v2 exercised")
	}
	if never := a.never(); len(never) != 0 {
		t.Errorf("exercised in v2, yet %d checks fail across the runs", len(never))
	}
	var b acrossRuns
	b.add("v1", idle)
	b.add("v2", idle)
	never := b.never()
	if len(never) != 1 || never[0].Passed || never[0].Outcome != report.OutcomeBroken ||
		never[0].Detail != "exercised in no run (v1: no transient key; v2: no transient key)" {
		t.Fatalf("never = %+v, want one broken check naming both runs", never)
	}
	rep := report.New("grade-test", report.After)
	if n := b.recordNever(rep); n != 1 || rep.Passed() || !strings.Contains(rep.Body(), "FAIL  every run: transient") {
		t.Errorf("recordNever: %d failed, passed %v, body:\n%s", n, rep.Passed(), rep.Body())
	}
}
