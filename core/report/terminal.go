package report

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// Redrawable reports whether w is a terminal that can redraw a line ("\r"
// and escape codes): a terminal, and TERM is not "dumb". Progress lines go
// only there (scenarios.Env.Progress), never into a file, a pipe or a report.
func Redrawable(w io.Writer) bool {
	return os.Getenv("TERM") != "dumb" && IsTerminal(w)
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
