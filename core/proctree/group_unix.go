//go:build unix

package proctree

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// system is a tree's process group, and its box where the system has one:
// the root leads a group of its own, and every process it starts stays in
// that group unless it leaves it (setsid); a box no process can leave.
type system struct {
	pgid    int
	members func(pgid int) []int // the group's live processes; this system's way of asking
	box     box                  // nil where the system offers none
}

// A box holds every process of a tree, whatever they do (a cgroup).
type box interface {
	kill()       // SIGKILL every process in it
	pids() []int // the live processes in it
	remove()     // give it back; it is empty
}

// newSystem makes the root lead a process group of its own, in a box of its
// own where the system offers one (see contain).
func newSystem(cmd *exec.Cmd) (*system, error) {
	attrs := &syscall.SysProcAttr{Setpgid: true}
	b, err := contain(attrs)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = attrs
	return &system{members: groupMembers, box: b}, nil
}

// started names the group the root leads.
func (s *system) started(cmd *exec.Cmd) error {
	s.pgid = cmd.Process.Pid
	return nil
}

// killAll sends SIGKILL to every process of the group, and of the box, at once.
func (s *system) killAll() {
	syscall.Kill(-s.pgid, syscall.SIGKILL)
	if s.box != nil {
		s.box.kill()
	}
}

// waitEmpty kills what is left of the group and the box until nothing is,
// or deadline.
func (s *system) waitEmpty(deadline time.Time) error {
	for {
		left := s.members(s.pgid)
		if s.box != nil {
			if in := s.box.pids(); len(in) > 0 {
				s.box.kill()
				left = append(left, in...)
			}
		}
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

// release gives the box back; a group ends with its last process.
func (s *system) release() {
	if s.box != nil {
		s.box.remove()
		s.box = nil
	}
}

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
