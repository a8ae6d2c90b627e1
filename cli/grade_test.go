package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
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
		{"unknown day", []string{"grade", "sesion-16", "--", "true"}, cmdutil.ExitUsage, "did you mean session-16"},
		{"no command", []string{"grade", "session-16"}, cmdutil.ExitUsage, "after --"},
		{"empty command", []string{"grade", "session-16", "--"}, cmdutil.ExitUsage, "no worker command"},
		{"bad flag", []string{"grade", "session-16", "--bogus", "--", "true"}, cmdutil.ExitUsage, "--bogus"},
		{"bad budget", []string{"grade", "session-16", "--turn-budget", "1ms", "--", "true"}, cmdutil.ExitUsage, "--turn-budget"},
		{"cannot start", []string{"grade", "session-16", "--no-report", "--", "/no/such/worker"}, cmdutil.ExitCannotRun, "cannot be started"},
		{"does not build", []string{"grade", "session-16", "--no-report", "--", "go", "run", "./no/such/package"}, cmdutil.ExitCannotRun, "cannot build"},
		{"does nothing", []string{"grade", "session-16", "--variations", "0", "--report-dir", reports, "--", "true"}, cmdutil.ExitChecksFailed, ""},
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
	if code != cmdutil.ExitOK {
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
	if code := Main([]string{"exercise", "session-16", dir}, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"main.go", "README.md"} {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(raw), "TODO") && f == "main.go" {
			t.Errorf("%s: %v (TODO in it: %v)", f, err, strings.Contains(string(raw), "TODO"))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Errorf("outside the lab's module the starter is a module of its own: %v", err)
	}
	// The lab runs from here, the worker from its folder (go -C): a cd
	// first would leave a lab started with go run . building the worker.
	if !strings.HasSuffix(out.String(), "\n         outboxlab grade session-16 -- go -C "+dir+" run .\n") {
		t.Errorf("the last line does not say how to grade it from here:\n%s", out.String())
	}
	// Inside the lab's module (a folder whose go.mod says module outboxlab)
	// the starter belongs to it: no go.mod of its own, go run ./day16 from there.
	lab := t.TempDir()
	if err := os.WriteFile(filepath.Join(lab, "go.mod"), []byte("// the lab\nmodule outboxlab\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := Main([]string{"exercise", "day16", filepath.Join(lab, "day16")}, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("exercise inside the lab's module: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(lab, "day16", "go.mod")); err == nil {
		t.Errorf("inside the lab's module the starter got a go.mod of its own")
	}
	if !strings.HasSuffix(out.String(), "\n         outboxlab grade session-16 -- go -C "+filepath.Join(lab, "day16")+" run .\n") {
		t.Errorf("the last line does not grade it with go -C DIR run .:\n%s", out.String())
	}
	if code := Main([]string{"exercise", "session-16", dir}, &out, &errb); code != cmdutil.ExitCannotRun {
		t.Errorf("writing over the starter: exit %d, want %d", code, cmdutil.ExitCannotRun)
	}
	if code := Main([]string{"exercise", "day99", dir}, &out, &errb); code != cmdutil.ExitUsage {
		t.Errorf("an unknown day: exit %d, want %d", code, cmdutil.ExitUsage)
	}
}

// TestVerifyGradeReport reruns a grade report only with the worker given
// again on verify's command line: without --worker it is refused (exit 1),
// with the same worker it verifies (exit 0), and with a worker that counts
// its attempts on failure instead of at claim the bodies differ (exit 1).
func TestVerifyGradeReport(t *testing.T) {
	worker := filepath.Join(t.TempDir(), "ok16")
	if out, err := exec.Command("go", "build", "-o", worker, "../grade/testdata/ok16").CombinedOutput(); err != nil {
		t.Fatalf("build the test worker: %v\n%s", err, out)
	}
	reports := t.TempDir()
	var out, errb bytes.Buffer
	if code := Main([]string{"grade", "session-16", "--variations", "1", "--report-dir", reports, "--", worker}, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("grade: exit %d\n%s%s", code, out.String(), errb.String())
	}
	files, _ := filepath.Glob(filepath.Join(reports, "session-16", "Grade-Session-16-RunReport-*.txt"))
	if len(files) != 1 {
		t.Fatalf("%d grade reports, want 1", len(files))
	}
	for _, tc := range []struct {
		name string
		bug  string
		args []string
		code int
		says string
	}{
		{"no worker", "", []string{"verify", files[0]}, cmdutil.ExitChecksFailed, "cannot be rerun without --worker"},
		{"same worker", "", []string{"verify", files[0], "--worker", "--", worker}, cmdutil.ExitOK, "verified"},
		{"another worker", "count-on-failure", []string{"verify", files[0], "--worker", "--", worker}, cmdutil.ExitChecksFailed, "body line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OK16_BUG", tc.bug)
			var out, errb bytes.Buffer
			if code := Main(tc.args, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.says) {
				t.Errorf("verify does not say %q:\n%s", tc.says, out.String())
			}
		})
	}
}
