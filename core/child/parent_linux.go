package child

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel SIGKILL the child when the lab dies, even
// by SIGKILL, so no orphaned worker keeps draining a database nobody reads.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// adopt has nothing to do once the child runs: the kernel watches for it.
func adopt(*exec.Cmd) error { return nil }

// watchParent is the kernel's work on Linux (dieWithParent).
func watchParent() {}
