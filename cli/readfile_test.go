package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/child"
)

// labRun is how one run of the command line in a child process ended.
type labRun struct {
	code           int
	stdout, stderr string
}

// runLabProcess runs the command line in a child process of this test binary
// (a run that blocks or floods would take the test process down with it) and
// fails the test if it has not ended within timeout. With asOther, the child
// runs as a user who is not the owner of the test's files: nobody, when the
// tests run as root (who may read and write anything).
func runLabProcess(t *testing.T, timeout time.Duration, asOther bool, args ...string) labRun {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if asOther && os.Geteuid() == 0 {
		exe = copyForNobody(t, exe)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), child.EnvVar+"=cli-main-for-tests")
	if asOther && os.Geteuid() == 0 {
		cmd.Dir = "/"
		runAsNobody(cmd)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("outboxlab %s still running after %v (killed)\nstderr: %s", strings.Join(args, " "), timeout, errb.String())
	}
	run := labRun{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		run.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return run
}

// nobody is the user and group id a root test run hands files to.
const nobody = 65534

// copyForNobody copies the test binary where nobody may run it.
func copyForNobody(t *testing.T, exe string) string {
	t.Helper()
	dir := openDir(t)
	bin := filepath.Join(dir, "cli.test")
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// openDir returns a new directory that any user may enter and read.
func openDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// denyWrites makes dir read-only to the user runLabProcess(asOther) runs as,
// until the test ends.
func denyWrites(t *testing.T, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
}

func TestReadReportReadsUpToTheLimitAndNoFurther(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A report that lost its final newline is read with it (report.Normalize).
	if got, err := cmdutil.ReadReport(ctx, path, 10); got != "0123456789\n" || err != nil {
		t.Errorf("readReport(10 bytes, limit 10) = %q, %v; want the file, its final newline put back", got, err)
	}
	_, err := cmdutil.ReadReport(ctx, path, 9)
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage || err.Error() != path+" is larger than 9 B, the most a report can be" {
		t.Errorf("readReport(10 bytes, limit 9) = %v (exit %d); want exit 2 naming the limit", err, code)
	}
	// A file can grow between the stat and the read, and /proc files say they
	// are empty: the limit holds while reading, not only by the stat.
	if _, err := os.Stat("/proc/self/status"); err == nil {
		_, err := cmdutil.ReadReport(ctx, "/proc/self/status", 100)
		if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage || !strings.Contains(err.Error(), "larger than 100 B") {
			t.Errorf("readReport(/proc/self/status, limit 100) = %v (exit %d); want exit 2 naming the limit", err, code)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := cmdutil.ReadReport(cancelled, path, 10); cmdutil.ExitCode(err) != cmdutil.ExitCannotRun {
		t.Errorf("readReport after Ctrl-C = %v; want exit 3", err)
	}
}

func TestShowEscapesControlBytes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, é, 日本", "plain text, é, 日本"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]0;title\x07", `\x1b]0;title\a`},
		{"a\tb\nc\rd\x00e\x7f", `a\tb\nc\rd\x00e\x7f`},
		{"c1 \u009b2J and \u0085", `c1 \u009b2J and \u0085`},
		{"raw \x9b byte", `raw \x9b byte`},
		{"bidi \u202eevil\u2066", `bidi \u202eevil\u2066`},
		{"line\u2028sep", `line\u2028sep`},
	} {
		if got := cmdutil.Show(c.in); got != c.want {
			t.Errorf("show(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
