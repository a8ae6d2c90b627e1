//go:build unix

package proctree

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// system is a tree's process group: the root leads a group of its own, and
// every process it starts stays in that group unless it leaves it.
type system struct {
	pgid    int
	members func(pgid int) []int // the group's live processes; this system's way of asking
}

// attach names the group the root leads (prepare made it a group leader).
func attach(cmd *exec.Cmd) (*system, error) {
	return &system{pgid: cmd.Process.Pid, members: groupMembers}, nil
}

// killAll sends SIGKILL to every process of the group at once.
func (s *system) killAll() { syscall.Kill(-s.pgid, syscall.SIGKILL) }

// waitEmpty kills what is left of the group until nothing is, or deadline.
func (s *system) waitEmpty(deadline time.Time) error {
	for {
		left := s.members(s.pgid)
		if len(left) == 0 {
			return nil
		}
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process group %d still has processes after SIGKILL", s.pgid)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// release has nothing to give back: a group ends with its last process.
func (s *system) release() {}

// signalMembers asks the kernel whether any process is left in group pgid
// (kill with signal 0), where no /proc lists them: it answers the group as
// a whole, -pgid, or nothing. A zombie counts until it is reaped, which its
// parent or, once orphaned, the system's init does at once.
func signalMembers(pgid int) []int {
	if syscall.Kill(-pgid, 0) == nil {
		return []int{-pgid}
	}
	return nil
}
