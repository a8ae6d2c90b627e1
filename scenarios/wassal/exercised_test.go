package wassal

import (
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

// Every scenario of Days 13-16 declares flags under which its mechanism is
// not exercised, and gets the verdict that says so under them: not PASS,
// not REPRODUCED, and not a failure either, with a check marked N/A whose
// why names a flag to change. The harness exits 1 on it (Passed is false).
func TestNotExercisedWithGivesItsVerdict(t *testing.T) {
	t.Parallel()
	for _, s := range wassalScenarios(t) {
		if s.Day == 17 {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			if len(s.NotExercisedWith) == 0 {
				t.Fatal("no NotExercisedWith: declare the flags under which this scenario's mechanism is not exercised")
			}
			rep := scenariotest.Run(t, s.Name, s.NotExercisedWith...)
			res := rep.Result()
			if !strings.HasPrefix(res.Verdict, report.VerdictNotExercised) || res.Passed {
				t.Fatalf("%s %s: verdict %q (passed %v), want %s", s.Name, strings.Join(s.NotExercisedWith, " "),
					res.Verdict, res.Passed, report.VerdictNotExercised)
			}
			for _, c := range res.Checks {
				if c.Outcome == report.OutcomeNotExercised && !strings.Contains(c.Detail, "--") {
					t.Errorf("N/A check %q says no flag to change: %q", c.Name, c.Detail)
				}
			}
			if !strings.Contains(rep.Body(), "  N/A  ") {
				t.Error("no check line is marked N/A")
			}
		})
	}
}

// Under their FailsWith flags, the AFTERs of Days 13-16 break a check (FAIL),
// and are not merely not exercised.
func TestFailsWithBreaksACheckInTheAfters(t *testing.T) {
	t.Parallel()
	for _, s := range wassalScenarios(t) {
		if s.Day == 17 || s.Kind != report.After {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			res := scenariotest.Run(t, s.Name, s.FailsWith...).Result()
			if !strings.HasPrefix(res.Verdict, report.VerdictFail) {
				t.Errorf("%s %s: verdict %q, want %s", s.Name, strings.Join(s.FailsWith, " "), res.Verdict, report.VerdictFail)
			}
		})
	}
}
