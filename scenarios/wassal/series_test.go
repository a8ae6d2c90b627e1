package wassal

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// runScenario runs a registered scenario with args the way the harness does
// (bind, validate, run in a fresh directory) and returns its report.
func runScenario(t *testing.T, name string, args ...string) *report.Report {
	t.Helper()
	opts, err := bindScenario(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	if err := opts.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := opts.Run(context.Background(), scenarios.Env{Dir: dir, DBPath: filepath.Join(dir, "outbox.db")})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// validateScenario binds args and returns what Validate says.
func validateScenario(t *testing.T, name string, args ...string) error {
	t.Helper()
	opts, err := bindScenario(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return opts.Validate()
}

func bindScenario(name string, args ...string) (scenarios.Options, error) {
	s := scenarios.Lookup(name)
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	opts := s.Bind(fs)
	return opts, fs.Parse(args)
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
	t.Log("\n" + runScenario(t, name, strings.Fields(*printArgs)...).Body())
}
