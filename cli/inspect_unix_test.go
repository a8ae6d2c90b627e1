//go:build unix

package cli

import (
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// inspect reads regular files only: a pipe or a device is refused before it
// is opened (a pipe would block the open forever), in one line, exit 2.
func TestInspectReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "/dev/zero is a character device, not a regular file"},
		{dir, dir + " is a directory, not a regular file"},
	} {
		run := runLabProcess(t, 10*time.Second, false, "inspect", "--db", c.path)
		if run.code != cmdutil.ExitUsage || run.stderr != "outboxlab: "+c.want+"\n" || run.stdout != "" {
			t.Errorf("inspect --db %s: exit %d, stdout %q, stderr %q; want 2 and %q", c.path, run.code, run.stdout, run.stderr, c.want)
		}
	}
}
