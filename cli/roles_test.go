package cli

import (
	"encoding/csv"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// rolesReport is a BEFORE's report file as the lab writes one: a failure
// reproduced, an invariant that held, and, when idle, a check not exercised.
func rolesReport(idle bool) string {
	r := report.New("ordered-demo", report.Before)
	r.Title("Roles demo")
	r.Check("later messages applied", true, "3 applied")
	r.Invariant("never applied twice", true, "0 twice")
	if idle {
		r.NotExercised("parked behind the failure", "no message failed: give --failing-message a type")
	} else {
		r.Check("parked behind the failure", true, "2 / 2 parked")
	}
	r.Checks("Safety checks")
	r.Verdict("THE FAILURE", "NO FAILURE")
	res := r.Result()
	exit := 1
	if res.Passed {
		exit = 0
	}
	rec := &report.Record{Scenario: res.Scenario, Kind: res.Kind, Version: cmdutil.Version, Checks: res.Checks,
		Verdict: res.Verdict, Passed: res.Passed, ExitCode: exit}
	return report.Header(report.Meta{Started: time.Unix(1764493200, 0), Command: "outboxlab ordered-demo",
		Database: "db", Version: cmdutil.Version, Record: rec}) + r.Body()
}

// TestCompareChecksShowsTheMarks: compare --checks prints each check with
// its report's mark (HOLDS for a BEFORE's invariant, N/A for a check not
// exercised), counts the N/A apart, and a body read without its header
// still reads as a BEFORE's.
func TestCompareChecksShowsTheMarks(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.txt", rolesReport(false))
	b := writeFile(t, dir, "b.txt", rolesReport(true))
	_, body, _ := report.SplitHeader(rolesReport(true))
	golden := writeFile(t, dir, "golden.txt", body)
	code, out, _ := compareExit("--checks", a, b)
	for _, want := range []string{
		"checks: A 3/3 passed, B 2/3 passed (1 N/A); 1 of 3 differ (1 changed)\n",
		"  HOLDS  never applied twice → 0 twice\n",
		"  REPRODUCED  later messages applied → 3 applied\n",
		"~ parked behind the failure\n    A  REPRODUCED  2 / 2 parked\n    B  N/A  no message failed: give --failing-message a type\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare --checks lacks %q:\n%s", want, out)
		}
	}
	if code != cmdutil.ExitChecksFailed {
		t.Errorf("compare --checks of differing outcomes: exit %d, want %d", code, cmdutil.ExitChecksFailed)
	}
	if code, out, _ := compareExit("--checks", golden, b); code != cmdutil.ExitOK || !strings.Contains(out, "  HOLDS  never applied twice") {
		t.Errorf("compare --checks golden body and its report: exit %d:\n%s", code, out)
	}
}

// writeFile writes text to dir/name as it is and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestClassExportsNotExercisedAsFailure: in class's JUnit a check that was
// not exercised is a failed case with its why (a skipped case shows green in
// every CI viewer, and the run has not passed); the CSV counts it; the row
// has not passed.
func TestClassExportsNotExercisedAsFailure(t *testing.T) {
	s, ok := judge("alice/ordered.txt", rolesReport(true))
	if !ok || s.Passed {
		t.Fatalf("judged %v, passed %v: want a report that has not passed", ok, s.Passed)
	}
	s.Student, s.Verify = "alice", verification{Verified: true}
	c := class{Dir: "class", Rows: []submission{s}}
	var suites junitSuites
	if err := xml.Unmarshal(classJUnit(c), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 4 || suites.Failures != 1 || suites.Skipped != 0 {
		t.Errorf("JUnit: %d tests, %d failures, %d skipped; want 4, 1, 0", suites.Tests, suites.Failures, suites.Skipped)
	}
	for _, tc := range suites.Suites[0].Cases {
		if tc.Name == "parked behind the failure" &&
			(tc.Failure == nil || tc.Skipped != nil || !strings.HasPrefix(tc.Failure.Message, "not exercised: ") ||
				!strings.Contains(tc.Failure.Message, "give --failing-message")) {
			t.Errorf("the check not exercised is %+v, want a failure with its why", tc)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(string(classCSV(c)))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("CSV: %v, %q", err, rows)
	}
	got := map[string]string{}
	for i, h := range rows[0] {
		got[h] = rows[1][i]
	}
	if got["checks_passed"] != "2" || got["checks_total"] != "3" || got["checks_not_exercised"] != "1" ||
		got["passed"] != "false" || got["verdict"] != "NOT EXERCISED" {
		t.Errorf("CSV row: %q", got)
	}
}

// TestColorizeNewMarks: HOLDS is green, BROKEN red, N/A and the NOT
// EXERCISED verdict yellow (nothing broke, nothing was shown).
func TestColorizeNewMarks(t *testing.T) {
	got := cmdutil.Colorize("  HOLDS  a → 1\n  BROKEN  b → 2\n  N/A  c → 3\nVERDICT: "+report.VerdictNotExercised+" X\n",
		report.Result{Kind: report.Before, Verdict: report.VerdictNotExercised + " X"})
	want := "  " + cmdutil.AnsiGreen + "HOLDS" + cmdutil.AnsiReset + "  a → 1\n  " + cmdutil.AnsiRed + cmdutil.AnsiBold + "BROKEN" + cmdutil.AnsiReset +
		"  b → 2\n  " + cmdutil.AnsiYellow + "N/A" + cmdutil.AnsiReset + "  c → 3\n" + cmdutil.AnsiBold + cmdutil.AnsiYellow + "VERDICT: " +
		report.VerdictNotExercised + " X" + cmdutil.AnsiReset + "\n"
	if got != want {
		t.Errorf("colorize =\n%q\nwant\n%q", got, want)
	}
}
