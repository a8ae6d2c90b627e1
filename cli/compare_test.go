package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/child"
	"outboxlab/core/report"
)

// writeReport writes a report file: a run-metadata header, then body.
func writeReport(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	header := report.Header(report.Meta{Started: time.Unix(1764493200, 0), Command: "outboxlab " + name, Database: "db", Version: cmdutil.Version})
	if err := os.WriteFile(path, []byte(header+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func compareExit(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"compare"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// What compare has always done, and still does.
func TestCompareSaysSameOrShowsTheDifference(t *testing.T) {
	dir := t.TempDir()
	a := writeReport(t, dir, "a.txt", "Day 16\n\nrate 12 msg/s "+report.MeasuredMarker+"\nVERDICT: ok\n")
	b := writeReport(t, dir, "b.txt", "Day 16\n\nrate 99 msg/s "+report.MeasuredMarker+"\nVERDICT: ok\n")
	c := writeReport(t, dir, "c.txt", "Day 16\n\nVERDICT: broken\n")
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("just some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if code, out, stderr := compareExit(a, b); code != cmdutil.ExitOK || out != "parameters: unknown: A's header does not record them (an older report); B's header does not record\n  them (an older report)\nsame: the report bodies are identical\n" || stderr != "" {
		t.Errorf("compare a b: exit %d, stdout %q, stderr %q; want 0, same", code, out, stderr)
	}
	code, out, stderr := compareExit(a, c)
	if code != cmdutil.ExitChecksFailed || !strings.Contains(out, "- VERDICT: ok\n+ VERDICT: broken\n") ||
		stderr != "outboxlab: the report bodies differ\n" {
		t.Errorf("compare a c: exit %d, stdout %q, stderr %q; want 1 and the diff", code, out, stderr)
	}
	if code, _, stderr := compareExit(notes, a); code != cmdutil.ExitUsage || stderr != "outboxlab: "+notes+" is not an outboxlab report (no run-metadata header, no report body)\n" {
		t.Errorf("compare notes a: exit %d, stderr %q; want 2, not a report", code, stderr)
	}
	if code, _, stderr := compareExit(a); code != cmdutil.ExitUsage || !strings.Contains(stderr, "compare takes two report files, got 1") {
		t.Errorf("compare a: exit %d, stderr %q; want 2", code, stderr)
	}
}

// A report larger than maxReportSize is refused, naming the limit, without
// reading it (the file here is sparse: it costs no disk).
func TestCompareRefusesAReportPastTheLimit(t *testing.T) {
	dir := t.TempDir()
	a := writeReport(t, dir, "a.txt", "body\n")
	big := writeReport(t, dir, "big.txt", "body\n")
	if err := os.Truncate(big, cmdutil.MaxReportSize+1); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := compareExit(big, a)
	if code != cmdutil.ExitUsage || stderr != "outboxlab: "+big+" is larger than 64 MiB, the most a report can be\n" {
		t.Errorf("compare big a: exit %d, stderr %q; want 2 naming the 64 MiB limit", code, stderr)
	}
}

// A file the user may not read: the machine's answer, exit 3.
func TestCompareOfAnUnreadableReportCannotRun(t *testing.T) {
	dir := openDir(t)
	a := writeReport(t, dir, "a.txt", "body\n")
	secret := writeReport(t, dir, "secret.txt", "body\n")
	if err := os.Chmod(secret, 0); err != nil {
		t.Fatal(err)
	}
	run := runLabProcess(t, 10*time.Second, true, "compare", a, secret)
	if run.code != cmdutil.ExitCannotRun || run.stderr != "outboxlab: cannot read report "+secret+": permission denied\n" {
		t.Errorf("compare a secret: exit %d, stderr %q; want 3, permission denied", run.code, run.stderr)
	}
}

// Ctrl-C ends a compare at once, even in the middle of a long diff (difflib
// takes seconds on bodies of some thousand lines that differ throughout).
func TestCompareStopsOnCtrlC(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&a, "l %d\n", i+1-i%3/2)
		fmt.Fprintf(&b, "l %d\n", i+7*(i%2))
	}
	pa, pb := writeReport(t, dir, "a.txt", a.String()), writeReport(t, dir, "b.txt", b.String())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "compare", pa, pb)
	cmd.Env = append(os.Environ(), child.EnvVar+"=cli-main-for-tests")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // long enough to be diffing, far from done
	interrupted := time.Now()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != cmdutil.ExitCannotRun || errb.String() != "outboxlab: compare interrupted\n" {
			t.Errorf("compare after Ctrl-C: %v, stderr %q; want exit 3, compare interrupted", err, errb.String())
		}
		t.Logf("ended %v after Ctrl-C", time.Since(interrupted).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("compare still running 5s after Ctrl-C")
	}
}

// runDay16 runs Day 16's AFTER with extra flags into dir and returns the report.
func runDay16(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(append([]string{"retry-with-dead-letter", "--report-dir", dir}, flags...), &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "session-16", "*.txt"))
	if len(files) != 1 {
		t.Fatalf("reports: %v", files)
	}
	return files[0]
}

// The golden body the repository ships is a reference; so is a report with
// its header stripped.
func TestCompareTakesAGoldenBodyAsReference(t *testing.T) {
	fresh := runDay16(t, t.TempDir())
	golden := "../testdata/golden/session-16-retry-with-dead-letter.txt"
	code, out, stderr := compareExit(golden, fresh)
	if code != cmdutil.ExitOK || out != "parameters: unknown: A is a golden body, made with the scenario's defaults\nsame: the report bodies are identical\n" || stderr != "" {
		t.Errorf("compare golden fresh: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	raw, _ := os.ReadFile(fresh)
	_, body, _ := report.SplitHeader(string(raw))
	stripped := filepath.Join(t.TempDir(), "stripped.txt")
	os.WriteFile(stripped, []byte(body), 0o644)
	if code, _, _ := compareExit(stripped, fresh); code != cmdutil.ExitOK {
		t.Errorf("compare stripped fresh: exit %d, want 0", code)
	}
	if code, _, _ := compareExit("--checks", "--metrics", golden, fresh); code != cmdutil.ExitOK {
		t.Errorf("compare --checks --metrics golden fresh: exit %d, want 0", code)
	}
}

// A golden body made with GoldenArgs says so: compare --help's claim that
// goldens are made with the defaults is true only with that exception.
func TestCompareNamesAGoldenBodysFlags(t *testing.T) {
	golden := "../testdata/golden/worker-throughput.txt"
	code, out, _ := compareExit(golden, golden)
	want := "parameters: unknown: A is a golden body, made with --messages 2000 --batch 100 --produce-for 10s " +
		"(the other flags at their defaults); B is a golden body, made with"
	if code != cmdutil.ExitOK || !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Errorf("compare of the worker-throughput golden: exit %d, %q; want it to say %q", code, out, want)
	}
}

// Day 16 with --max-attempts 3 and 5: the flags come first, the full diff
// tells PAY-003's story without the healthy rows, and --checks/--metrics
// judge only what they compare.
func TestCompareAcrossFlags(t *testing.T) {
	a, b := runDay16(t, t.TempDir()), runDay16(t, t.TempDir(), "--max-attempts", "5")
	code, out, _ := compareExit(a, b)
	if code != cmdutil.ExitChecksFailed || !strings.HasPrefix(out, "parameters differ (A → B; information, not a difference in the result):\n  --max-attempts  A 3  B 5\n") {
		t.Fatalf("compare: exit %d, stdout:\n%s", code, out)
	}
	for _, want := range []string{
		"+ 09:00:01.403Z  PAY-003  attempt 4/5  FAILED",
		"~ [PAY-003] Attempts 3/3 → 5/5; Calls 3 → 5\n",
		"~ [Poison attempts] AFTER (policy) 3 (= MaxAttempts) → 5 (= MaxAttempts)\n",
		// A figure that equals the flag's value is a result, not the flag
		// printed in its place: the check's change is shown.
		"-   PASS  poison tried exactly MaxAttempts → 3 / 3\n+   PASS  poison tried exactly MaxAttempts → 5 / 5\n",
		"- PAY-003 is a would-be Failed payment: none of its 3 status checks paid",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %q", want)
		}
	}
	for _, not := range []string{"PAY-001", "PAY-005", "Healthy messages"} {
		if strings.Contains(out, not) {
			t.Errorf("compare shows %q, which did not change but for the flag", not)
		}
	}
	// The timeline's changed lines (each poll's attempt and backoff) and the
	// checks that changed, not the report twice: at most 60 lines.
	if n := strings.Count(out, "\n"); n > 60 {
		t.Errorf("compare printed %d lines, want at most 60:\n%s", n, out)
	}
	code, out, stderr := compareExit("--checks", a, b)
	if code != cmdutil.ExitChecksFailed || !strings.Contains(out, "~ poison tried exactly MaxAttempts\n    A  PASS  3 / 3\n    B  PASS  5 / 5\n") ||
		stderr != "outboxlab: the checks differ\n" {
		t.Errorf("compare --checks: exit %d, %q, %q", code, out, stderr)
	}
	code, out, _ = compareExit("--metrics", a, b)
	if code != cmdutil.ExitChecksFailed || !strings.Contains(out, "6 of 20 changed") ||
		!regexpMatch(`│ provider_calls +│ 8 +│ 10 +│ changed +│`, out) || !regexpMatch(`│ paid +│ 4 +│ 4 +│ +│`, out) {
		t.Errorf("compare --metrics: exit %d:\n%s", code, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if w := len([]rune(l)); w > 100 {
			t.Errorf("--metrics line of %d columns: %q", w, l)
		}
	}
	// Checks that agree while other lines differ: exit 0. (A longer lease
	// changes the Setup and the timeline's lease times, no check's figure;
	// another backoff would change the backoff check's.)
	c := runDay16(t, t.TempDir(), "--lease", "45s")
	if code, out, _ := compareExit("--checks", a, c); code != cmdutil.ExitOK || !strings.Contains(out, "the same") {
		t.Errorf("compare --checks with another lease: exit %d, %q", code, out)
	}
	if code, _, _ := compareExit(a, c); code != cmdutil.ExitChecksFailed {
		t.Errorf("compare with another lease: exit %d, want 1", code)
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
