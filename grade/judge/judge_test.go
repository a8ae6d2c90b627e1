package judge

import (
	"testing"

	"outboxlab/core/report"
)

// TestChecksAreReports: a grade's checks are core/report's, every one a
// demonstrating check; one that was not exercised is N/A in its run (grade
// fails a check no run exercised), and a check's detail is its first
// problem and how many more there were.
func TestChecksAreReports(t *testing.T) {
	j := &Judge{}
	j.Add("held", true, "fine")
	j.AddExercised("not exercised", false, "no retry happened", nil, "fine")
	j.AddExercised("broken", true, "", []string{"first", "second", "third"}, "fine")
	want := []report.Check{
		{Name: "held", Passed: true, Detail: "fine", Role: report.RoleDemonstrates, Outcome: report.OutcomeHeld},
		{Name: "not exercised", Detail: "not exercised: no retry happened", Role: report.RoleDemonstrates,
			Outcome: report.OutcomeNotExercised},
		{Name: "broken", Detail: "first (and 2 more)", Role: report.RoleDemonstrates, Outcome: report.OutcomeBroken},
	}
	got := j.Checks()
	if len(got) != len(want) {
		t.Fatalf("%d checks, want %d", len(got), len(want))
	}
	rep := report.New("grade-test", report.After)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("check %d = %+v, want %+v", i, got[i], want[i])
		}
		rep.Record(got[i])
	}
	if marks := []string{report.Mark(rep.Kind, got[0]), report.Mark(rep.Kind, got[1])}; marks[0] != report.MarkPass || marks[1] != report.MarkNotExercised {
		t.Errorf("marks %q, want PASS then N/A", marks)
	}
	if rep.Passed() {
		t.Error("a report with a broken check passed")
	}
}
