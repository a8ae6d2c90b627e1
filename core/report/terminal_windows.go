package report

import (
	"os"

	"github.com/mattn/go-isatty"

	"golang.org/x/sys/windows"
)

// terminalColumns is the width of the console window f writes to, or 0
// when f is not a console.
func terminalColumns(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}

// escapeCodes asks the console f writes to to read escape codes (virtual
// terminal processing: Windows 10 and later) and reports whether it does;
// an older console would print them as text. A Cygwin or MSYS2 terminal
// (mintty, Git Bash) is a pipe that reads them.
func escapeCodes(f *os.File) bool {
	if isatty.IsCygwinTerminal(f.Fd()) {
		return true
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
