package proctree

import (
	"os/exec"
	"syscall"
)

// prepare makes the root lead a process group of its own. macOS has no
// parent-death signal: a lab killed outright leaves the tree running until
// it ends by itself (the worker's own calls to the lab then fail).
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// groupMembers asks the kernel about the group as a whole: macOS has no
// /proc to list it by.
func groupMembers(pgid int) []int { return signalMembers(pgid) }
