package proctree

import (
	"os"
	"strconv"
	"syscall"
)

// Exit is how a process ended: its exit code, or the signal that killed it.
type Exit struct {
	Code   int    // the exit code; -1 when a signal ended it
	Signal string // the signal that killed it ("killed" for SIGKILL), if any
}

// Killed reports whether the process was killed outright (SIGKILL, or on
// Windows a termination by the lab).
func (e Exit) Killed() bool { return e.Signal == syscall.SIGKILL.String() }

// String says it as a timeline does: "with status 2", "on killed".
func (e Exit) String() string {
	if e.Signal != "" {
		return "on " + e.Signal
	}
	return "with status " + strconv.Itoa(e.Code)
}

// KilledCode is the exit code Windows reports for a process the lab ended
// (KillSelf, Tree.Kill): Windows has no signals, so the code says it, as a
// shell's 128+9 does for SIGKILL.
const KilledCode = 128 + 9

// fromCode reads an exit code where no signal can end a process (Windows):
// KilledCode reads as SIGKILL, as on Unix.
func fromCode(code int) Exit {
	if code == KilledCode {
		return Exit{Code: -1, Signal: syscall.SIGKILL.String()}
	}
	return Exit{Code: code}
}

// ExitOf reads how a reaped process ended from its state.
func ExitOf(state *os.ProcessState) Exit {
	if state == nil {
		return Exit{Code: -1}
	}
	return exitOf(state.ExitCode(), state.Sys())
}
