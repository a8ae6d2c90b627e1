package report

import (
	"os"

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
