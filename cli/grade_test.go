package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/report"
)

// TestGradeExitCodes pins grade's exits: 0 with a report under
// session-16/, 1 for a worker that does nothing, 2 for bad usage, 3 for a
// command that cannot be started.
func TestGradeExitCodes(t *testing.T) {
	reports := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"unknown day", []string{"grade", "sesion-16", "--", "true"}, ExitUsage, "did you mean session-16"},
		{"no command", []string{"grade", "session-16"}, ExitUsage, "after --"},
		{"empty command", []string{"grade", "session-16", "--"}, ExitUsage, "no worker command"},
		{"bad flag", []string{"grade", "session-16", "--bogus", "--", "true"}, ExitUsage, "--bogus"},
		{"bad budget", []string{"grade", "session-16", "--turn-budget", "1ms", "--", "true"}, ExitUsage, "--turn-budget"},
		{"cannot start", []string{"grade", "session-16", "--no-report", "--", "/no/such/worker"}, ExitCannotRun, "cannot be started"},
		{"does not build", []string{"grade", "session-16", "--no-report", "--", "go", "run", "./no/such/package"}, ExitCannotRun, "cannot build"},
		{"does nothing", []string{"grade", "session-16", "--variations", "0", "--report-dir", reports, "--", "true"}, ExitChecksFailed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Main(tc.args, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stderr %q does not say %q", errb.String(), tc.err)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join(reports, "session-16", "Grade-Session-16-RunReport-*.txt"))
	if len(files) != 1 {
		t.Fatalf("%d reports in %s/session-16, want 1", len(files), reports)
	}
	raw, _ := os.ReadFile(files[0])
	_, body, ok := report.SplitHeader(string(raw))
	if !ok || !strings.Contains(body, "FAIL  v1: protocol: done and exit 0") {
		t.Errorf("the report does not fail the done check:\n%s", body)
	}
}

// TestGradeGoRunPasses grades the grade package's test worker through
// `go run` (built once for every variation) and reads the --json result.
func TestGradeGoRunPasses(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"grade", "day16", "--no-report", "--json", "--", "go", "run", "../grade/testdata/ok16"}, &out, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, errb.String(), out.String())
	}
	var res report.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Passed || res.Scenario != "grade-session-16" || len(res.Checks) < 4*15 {
		t.Errorf("passed %v, scenario %s, %d checks", res.Passed, res.Scenario, len(res.Checks))
	}
}

// TestExerciseWritesTheStarter writes the Day 16 starter, refuses to write
// it over itself, and refuses a Day without one.
func TestExerciseWritesTheStarter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "day16")
	var out, errb bytes.Buffer
	if code := Main([]string{"exercise", "session-16", dir}, &out, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"main.go", "README.md"} {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(raw), "TODO") && f == "main.go" {
			t.Errorf("%s: %v (TODO in it: %v)", f, err, strings.Contains(string(raw), "TODO"))
		}
	}
	if code := Main([]string{"exercise", "session-16", dir}, &out, &errb); code != ExitCannotRun {
		t.Errorf("writing over the starter: exit %d, want %d", code, ExitCannotRun)
	}
	if code := Main([]string{"exercise", "day99", dir}, &out, &errb); code != ExitUsage {
		t.Errorf("an unknown day: exit %d, want %d", code, ExitUsage)
	}
}
