package wassal

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// driveDesign validates args for the scenario called name, then drives one
// design of it (drive's bool) on a fresh database; it returns the options and the run.
func driveDesign[O scenarios.Options, R any](t *testing.T, drive func(O, context.Context, dialect.Database, bool) (R, error),
	name string, design bool, args ...string) (O, R) {
	t.Helper()
	o := scenariotest.Bind(t, name, args...).(O)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	run, err := drive(o, context.Background(), dialect.File(filepath.Join(t.TempDir(), "outbox.db")), design)
	if err != nil {
		t.Fatal(err)
	}
	return o, run
}

// wantChecks fails the test for every named check whose mark and detail
// differ, or that the report lacks.
func wantChecks(t *testing.T, rep *report.Report, want map[string]string) {
	t.Helper()
	for name, w := range want {
		c := scenariotest.CheckNamed(t, rep, name)
		mark := "PASS "
		switch {
		case c.Outcome == report.OutcomeNotExercised:
			mark = "N/A "
		case !c.Passed:
			mark = "FAIL "
		}
		if got := mark + c.Detail; got != w {
			t.Errorf("check %q = %q, want %q", name, got, w)
		}
	}
}

// judged records the checks judge makes on a fresh report and returns it.
func judged(judge func(r *report.Report)) *report.Report {
	r := report.New("test", report.After)
	judge(r)
	return r
}

// wantFail fails the test unless rep's check called name failed with a
// metric containing detail.
func wantFail(t *testing.T, rep *report.Report, name, detail string) {
	t.Helper()
	c := scenariotest.CheckNamed(t, rep, name)
	if c.Passed || !strings.Contains(c.Detail, detail) {
		t.Errorf("check %q passed=%v detail %q; want it failed, its figure containing %q", name, c.Passed, c.Detail, detail)
	}
}

// wantNotExercised fails the test unless rep's check called name was not
// exercised, its why containing why, and the verdict says so.
func wantNotExercised(t *testing.T, rep *report.Report, name, why string) {
	t.Helper()
	c := scenariotest.CheckNamed(t, rep, name)
	if c.Outcome != report.OutcomeNotExercised || c.Passed || !strings.Contains(c.Detail, why) {
		t.Errorf("check %q outcome %s passed=%v detail %q; want not exercised, its why containing %q",
			name, c.Outcome, c.Passed, c.Detail, why)
	}
	if v := rep.Result().Verdict; !strings.HasPrefix(v, report.VerdictNotExercised) {
		t.Errorf("verdict %q, want %s", v, report.VerdictNotExercised)
	}
}

// wantPass fails the test unless rep's check called name passed.
func wantPass(t *testing.T, rep *report.Report, name string) {
	t.Helper()
	if c := scenariotest.CheckNamed(t, rep, name); !c.Passed {
		t.Errorf("check %q failed: %s", name, c.Detail)
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
	if *printPostgres {
		t.Log("\n" + scenariotest.RunPostgres(t, pgtest.URL(t), name, strings.Fields(*printArgs)...).Body())
		return
	}
	t.Log("\n" + scenariotest.Run(t, name, strings.Fields(*printArgs)...).Body())
}
