//go:build linux

package workerproc

import (
	"errors"
	"os/exec"
)

// Sandboxed is c run under bubblewrap (Debian's bubblewrap package): the
// whole file system read-only, a private /tmp, and writable only c's own
// folder and run (the run's folder: its database, the built worker). The
// network stays: the worker reaches the lab over loopback. bwrap dies with
// the lab, and its tree is the worker's (core/proctree ends it).
func (c Command) Sandboxed(run string) (Command, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return Command{}, CanSandbox()
	}
	argv := []string{bwrap, "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/tmp",
		"--bind", c.dir, c.dir, "--bind", run, run, "--chdir", c.dir, "--"}
	return Command{argv: append(argv, c.argv...), dir: c.dir}, nil
}

// CanSandbox says why workers cannot be sandboxed here; nil when they can.
func CanSandbox() error {
	if _, err := exec.LookPath("bwrap"); err != nil {
		return errors.New("--sandbox needs bubblewrap (bwrap), which is not installed here: apt-get install bubblewrap")
	}
	return nil
}
