package wassal

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// driveDesign validates args for the scenario called name, then drives one
// design of it (drive's bool) on a fresh database; it returns the options and the run.
func driveDesign[O scenarios.Options, R any](t *testing.T, drive func(O, context.Context, string, bool) (R, error),
	name string, design bool, args ...string) (O, R) {
	t.Helper()
	o := scenariotest.Bind(t, name, args...).(O)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	run, err := drive(o, context.Background(), filepath.Join(t.TempDir(), "outbox.db"), design)
	if err != nil {
		t.Fatal(err)
	}
	return o, run
}

// checkDetails maps each check of a report to "PASS detail" or "FAIL detail".
func checkDetails(rep *report.Report) map[string]string {
	out := map[string]string{}
	for _, c := range rep.Result().Checks {
		mark := "PASS "
		if !c.Passed {
			mark = "FAIL "
		}
		out[c.Name] = mark + c.Detail
	}
	return out
}

// wantChecks fails the test for every named check whose mark and detail differ.
func wantChecks(t *testing.T, rep *report.Report, want map[string]string) {
	t.Helper()
	got := checkDetails(rep)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("check %q = %q, want %q", name, got[name], w)
		}
	}
}

// wantLines fails the test for every fragment the report body lacks.
func wantLines(t *testing.T, rep *report.Report, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(rep.Body(), f) {
			t.Errorf("report lacks %q", f)
		}
	}
}

func TestPrintScenario(t *testing.T) {
	name := *printScenario
	if name == "" {
		t.Skip("set -print NAME to print a scenario's report")
	}
	t.Log("\n" + scenariotest.Run(t, name, strings.Fields(*printArgs)...).Body())
}
