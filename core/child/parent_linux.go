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
