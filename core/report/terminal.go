package report

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
)

// Redrawable reports whether w is a terminal that can redraw a line ("\r"
// and escape codes): a terminal, TERM is not "dumb", and the terminal reads
// escape codes (a Windows console once asked to, see escapeCodes). Progress
// lines go only there (scenarios.Env.Progress), never into a file, a pipe
// or a report.
func Redrawable(w io.Writer) bool {
	f, ok := w.(*os.File)
	return os.Getenv("TERM") != "dumb" && IsTerminal(w) && ok && escapeCodes(f)
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// MinWidth is the narrowest terminal the lab lays its output out for: the
// width macOS Terminal and GNOME Terminal open at. A narrower one wraps.
const MinWidth = 80

// Sized is a writer that says how many columns it shows (a test's
// terminal of a chosen width); TerminalWidth believes it before COLUMNS.
type Sized interface {
	Columns() int
}

// TerminalWidth is how many columns output written to w is laid out for:
// COLUMNS when it is set to a number, else the width of w's terminal,
// either clamped to MinWidth..MaxWidth; MaxWidth when w is no terminal and
// COLUMNS is not set (a file, a pipe: the report's own layout). A report
// body is always MaxWidth wide; View lays it out for a narrower terminal.
func TerminalWidth(w io.Writer) int {
	clamp := func(n int) int { return min(max(n, MinWidth), MaxWidth) }
	if s, ok := w.(Sized); ok {
		return clamp(s.Columns())
	}
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return clamp(n)
	}
	if f, ok := w.(*os.File); ok && IsTerminal(w) {
		if n := terminalColumns(f); n > 0 {
			return clamp(n)
		}
	}
	return MaxWidth
}
