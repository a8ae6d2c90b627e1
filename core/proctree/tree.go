// Package proctree runs a process as the root of a tree of its own and ends
// the whole tree at once: the root, every process it starts, and theirs. A
// worker started as `go run` or through a shell runs as a grandchild, so
// killing the root alone would leave the real worker running.
//
// Each system has its own tree. On Linux, a cgroup of its own where the
// system lets the lab make one (cgroup v2): no process leaves it, not even
// one that calls setsid or forks twice, and the kernel kills it whole
// (cgroup.kill); and a process group, which is all there is where no
// cgroup can be made. On macOS a process group: a process that calls setsid
// leaves it, and nothing the system offers an unprivileged program follows
// it. On Windows a Job Object, which no process started in it can leave,
// and which kills every process in it when the lab's handle closes.
package proctree

import (
	"fmt"
	"os/exec"
	"time"
)

// settle bounds how long Kill waits for the tree to be empty.
const settle = 5 * time.Second

// A Tree is a started root process and everything it starts.
type Tree struct {
	cmd    *exec.Cmd
	sys    *system // what this system holds of the tree (group, job)
	exited chan struct{}
	exit   Exit
}

// Start starts cmd as the root of a new tree. cmd's SysProcAttr is the
// tree's: Start replaces it. The caller sets Stdin, Stdout, Env and Dir.
func Start(cmd *exec.Cmd) (*Tree, error) {
	sys, err := newSystem(cmd)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		sys.release()
		return nil, err
	}
	if err := sys.started(cmd); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		sys.release()
		return nil, fmt.Errorf("make process %d the root of a tree: %w", cmd.Process.Pid, err)
	}
	t := &Tree{cmd: cmd, sys: sys, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		t.exit = ExitOf(cmd.ProcessState)
		close(t.exited)
	}()
	return t, nil
}

// Pid is the root's process id.
func (t *Tree) Pid() int { return t.cmd.Process.Pid }

// Exited is closed once the root has exited and been reaped.
func (t *Tree) Exited() <-chan struct{} { return t.exited }

// Exit is how the root ended; read it once Exited is closed.
func (t *Tree) Exit() Exit { return t.exit }

// Kill ends every process of the tree and waits until the root is reaped and
// no process of the tree is left, at most a few seconds; an error says what
// remained. Killing a tree twice, or one whose processes have all exited,
// is not an error. The tree's resources are released either way.
func (t *Tree) Kill() error {
	t.sys.killAll()
	select {
	case <-t.exited:
	case <-time.After(settle):
		t.sys.release()
		return fmt.Errorf("process %d did not end after it was killed", t.Pid())
	}
	err := t.sys.waitEmpty(time.Now().Add(settle))
	t.sys.release()
	return err
}

// Contains reports whether a tree here holds every process it starts, even
// one that leaves its process group (setsid): on Linux where the lab may
// make a cgroup, and on Windows. Elsewhere such a process escapes the tree.
func Contains() bool { return contains() }
