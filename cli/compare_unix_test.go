//go:build unix

package cli

import (
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
			if run.code != cmdutil.ExitUsage || run.stderr != "outboxlab: "+c.want+"\n" || run.stdout != "" {
				t.Errorf("compare %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(args, " "), run.code, run.stdout, run.stderr, c.want)
			}
		}
	}
}
