package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"outboxlab/core/child"
	"outboxlab/core/report"
)

// writeReport writes a report file: a run-metadata header, then body.
func writeReport(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	header := report.Header(report.Meta{Started: time.Unix(1764493200, 0), Command: "outboxlab " + name, Database: "db", Version: Version})
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

	if code, out, stderr := compareExit(a, b); code != ExitOK || out != "same: the report bodies are identical\n" || stderr != "" {
		t.Errorf("compare a b: exit %d, stdout %q, stderr %q; want 0, same", code, out, stderr)
	}
	code, out, stderr := compareExit(a, c)
	if code != ExitChecksFailed || !strings.Contains(out, "-VERDICT: ok\n+VERDICT: broken\n") ||
		stderr != "outboxlab: the report bodies differ\n" {
		t.Errorf("compare a c: exit %d, stdout %q, stderr %q; want 1 and the diff", code, out, stderr)
	}
	if code, _, stderr := compareExit(notes, a); code != ExitUsage || stderr != "outboxlab: "+notes+" is not an outboxlab report (no run-metadata header)\n" {
		t.Errorf("compare notes a: exit %d, stderr %q; want 2, not a report", code, stderr)
	}
	if code, _, stderr := compareExit(a); code != ExitUsage || !strings.Contains(stderr, "compare takes two report files, got 1") {
		t.Errorf("compare a: exit %d, stderr %q; want 2", code, stderr)
	}
}

// compare reads regular files only: a device or a pipe is refused at once,
// before it is opened, in one line, exit 2.
func TestCompareReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	a := writeReport(t, dir, "a.txt", "body\n")
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero is a character device, not a regular file"},
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{dir, dir + " is a directory, not a regular file"},
		{filepath.Join(dir, "missing.txt"), "cannot read report " + filepath.Join(dir, "missing.txt") + ": no such file or directory"},
	} {
		for _, args := range [][]string{{c.path, a}, {a, c.path}} {
			run := runLabProcess(t, 10*time.Second, false, append([]string{"compare"}, args...)...)
			if run.code != ExitUsage || run.stderr != "outboxlab: "+c.want+"\n" || run.stdout != "" {
				t.Errorf("compare %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(args, " "), run.code, run.stdout, run.stderr, c.want)
			}
		}
	}
}

// A report larger than maxReportSize is refused, naming the limit, without
// reading it (the file here is sparse: it costs no disk).
func TestCompareRefusesAReportPastTheLimit(t *testing.T) {
	dir := t.TempDir()
	a := writeReport(t, dir, "a.txt", "body\n")
	big := writeReport(t, dir, "big.txt", "body\n")
	if err := os.Truncate(big, maxReportSize+1); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := compareExit(big, a)
	if code != ExitUsage || stderr != "outboxlab: "+big+" is larger than 64 MiB, the most a report can be\n" {
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
	if run.code != ExitCannotRun || run.stderr != "outboxlab: cannot read report "+secret+": permission denied\n" {
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
		if !errors.As(err, &ee) || ee.ExitCode() != ExitCannotRun || errb.String() != "outboxlab: compare interrupted\n" {
			t.Errorf("compare after Ctrl-C: %v, stderr %q; want exit 3, compare interrupted", err, errb.String())
		}
		t.Logf("ended %v after Ctrl-C", time.Since(interrupted).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("compare still running 5s after Ctrl-C")
	}
}
