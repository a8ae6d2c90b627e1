// Package proctree runs a process as the root of a tree of its own and ends
// the whole tree at once: the root, every process it starts, and theirs. A
// worker started as `go run` or through a shell runs as a grandchild, so
// killing the root alone would leave the real worker running.
//
// Each system has its own tree: a process group on Linux and macOS (on
// Linux the kernel also kills the root when the lab dies), a Job Object on
// Windows, which kills every process in it when the lab's handle closes.
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
	prepare(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sys, err := attach(cmd)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
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
