package governance

import (
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

// With --panics 0 the emitter never panics: the errors are judged alone,
// their figure naming no panic, and the panics read N/A, so the verdict is
// NOT EXERCISED rather than a pass that claims panics it never saw.
func TestThresholdWithoutPanicsJudgesNoPanic(t *testing.T) {
	t.Parallel()
	res := scenariotest.Run(t, thresholdName, "--panics", "0").Result()
	errs := checkNamed(t, res, "emitter errors count as failures; the drain never crashed")
	if want := "every error (GOV-003) in both modes persisted as a failed attempt (emitter.unexpected_error); " +
		"every drain finished its run"; !errs.Passed || errs.Detail != want {
		t.Errorf("errors: passed %v, %q; want it held, %q", errs.Passed, errs.Detail, want)
	}
	panics := checkNamed(t, res, "emitter panics count as failures")
	if panics.Outcome != report.OutcomeNotExercised || !strings.HasPrefix(panics.Detail, "--panics 0: the emitter never panicked on GOV-004") {
		t.Errorf("panics: %s %q; want not exercised, naming --panics 0", panics.Outcome, panics.Detail)
	}
	if res.Passed || !strings.HasPrefix(res.Verdict, report.VerdictNotExercised) {
		t.Errorf("passed %v, verdict %q; want %s", res.Passed, res.Verdict, report.VerdictNotExercised)
	}
	// With panics, one check judges both, as before.
	res = scenariotest.Run(t, thresholdName, "--panics", "1").Result()
	if c := checkNamed(t, res, "emitter errors and panics count as failures; the drain never crashed"); !c.Passed ||
		!strings.Contains(c.Detail, "panic (GOV-004)") {
		t.Errorf("--panics 1: passed %v, %q; want it held on GOV-004's panic", c.Passed, c.Detail)
	}
}
