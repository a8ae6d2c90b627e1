//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// runAsNobody makes cmd run as the user nobody (the tests run as root).
func runAsNobody(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
}
