package proctree

import (
	"golang.org/x/sys/windows"
)

// exitOf reads an exit code: Windows has no signals.
func exitOf(code int, _ any) Exit { return fromCode(code) }

// KillSelf ends the calling process at once (TerminateProcess): no deferred
// function, no cleanup, no error handling runs.
func KillSelf() {
	windows.TerminateProcess(windows.CurrentProcess(), KilledCode)
	select {} // the process ends before this blocks for long
}
