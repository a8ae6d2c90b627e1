package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"strings"
	"testing"
)

// TestGradeResults: a failing worker's grade writes Gradescope's results
// and exits 0 (grading ran); a worker that cannot start exits 3 with no
// file; an existing file is never replaced without --force; a results file
// without its format is refused; the report records no results flag, so
// verify reruns it.
func TestGradeResults(t *testing.T) {
	ok16 := buildTestWorker(t, "ok16", t.TempDir())
	dir := t.TempDir()
	file := filepath.Join(dir, "results.json")
	reports := t.TempDir()
	t.Setenv("OK16_BUG", "count-on-failure")
	var out, errb bytes.Buffer
	code := Main([]string{"grade", "session-16", "--variations", "1", "--report-dir", reports,
		"--results", file, "--results-format", "gradescope", "--", ok16}, &out, &errb)
	if code != cmdutil.ExitOK {
		t.Fatalf("a failing grade with --results: exit %d, want 0\n%s", code, errb.String())
	}
	var gs struct {
		Score float64 `json:"score"`
		Tests []struct {
			Name, Status, Output, Visibility string
			Score                            float64
		} `json:"tests"`
	}
	raw, _ := os.ReadFile(file)
	if err := json.Unmarshal(raw, &gs); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, tc := range gs.Tests {
		if tc.Status == "failed" {
			failed++
			if !strings.HasPrefix(tc.Output, "failed: ") && !strings.HasPrefix(tc.Output, "not exercised: ") {
				t.Errorf("failing test %q without its detail: %q", tc.Name, tc.Output)
			}
		}
	}
	if failed == 0 || len(gs.Tests) < 40 {
		t.Errorf("%d tests, %d failed: want the grade's checks, some failed", len(gs.Tests), failed)
	}
	reportFiles, _ := filepath.Glob(filepath.Join(reports, "session-16", "*.txt"))
	text, _ := os.ReadFile(reportFiles[0])
	if strings.Contains(string(text), `"results`) || strings.Contains(string(text), `"force"`) {
		t.Error("the report records a results flag")
	}
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--results", file, "--results-format", "gradescope", "--", ok16}, cmdutil.ExitCannotRun, "exists already"},
		{[]string{"--results", filepath.Join(dir, "r2.json"), "--", ok16}, cmdutil.ExitUsage, "needs --results-format"},
		{[]string{"--results", filepath.Join(dir, "r2.json"), "--results-format", "moodle", "--", ok16}, cmdutil.ExitUsage, "want gradescope"},
		{[]string{"--results", filepath.Join(dir, "r3.json"), "--results-format", "junit", "--", "/no/such/worker"}, cmdutil.ExitCannotRun, "cannot"},
	} {
		var out, errb bytes.Buffer
		if code := Main(append([]string{"grade", "session-16", "--no-report"}, tc.args...), &out, &errb); code != tc.code ||
			!strings.Contains(errb.String(), tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", tc.args, code, errb.String(), tc.code, tc.says)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r3.json")); err == nil {
		t.Error("a grade that could not run wrote a results file")
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, raw) {
		t.Error("the existing results file was replaced")
	}
}
