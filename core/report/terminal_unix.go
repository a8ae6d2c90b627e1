//go:build unix

package report

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalColumns is the width of the terminal f is, or 0 when it cannot
// be read.
func terminalColumns(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// escapeCodes reports whether the terminal f reads escape codes: every
// terminal on these systems does.
func escapeCodes(*os.File) bool { return true }
