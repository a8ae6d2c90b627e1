//go:build unix

package proctree

import (
	"os"
	"syscall"
)

// exitOf reads a wait status: a process a signal ended has code -1.
func exitOf(code int, sys any) Exit {
	if ws, ok := sys.(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal().String()}
	}
	return Exit{Code: code}
}

// KillSelf ends the calling process at once with SIGKILL: no deferred
// function, no cleanup, no error handling runs.
func KillSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is delivered before this blocks for long
}
