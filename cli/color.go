package cli

import (
	"io"
	"os"
	"strings"

	"outboxlab/core/report"
)

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiItalic = "\x1b[3m"
	// ansiReverse swaps foreground and background: the step view's mark for
	// a changed cell's new value, readable in any colour scheme.
	ansiReverse = "\x1b[7m"
)

// useColor reports whether w is a terminal that wants colour: never when
// NO_COLOR is set to a non-empty value (https://no-color.org: an empty one
// does not count), never on a dumb terminal, never into a file or pipe.
func useColor(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && smartTerminal(w)
}

// smartTerminal reports whether w is a terminal that understands escape
// codes (progress lines and colour go only there): not TERM=dumb.
func smartTerminal(w io.Writer) bool { return report.Redrawable(w) }

// colorize marks PASS and FAIL (a BEFORE's REPRODUCED and NOT REPRODUCED,
// HOLDS and BROKEN; N/A) and the verdict line for the terminal. The
// report file is always written from the plain text, never from this.
func colorize(text string, res report.Result) string {
	verdict := ansiGreen
	switch {
	case report.NotExercisedVerdict(res.Verdict):
		verdict = ansiYellow // nothing broke, but nothing was shown either
	case !res.Passed:
		verdict = ansiRed
	case res.Kind == report.Before:
		verdict = ansiYellow // the failure mode, reproduced as intended
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "  PASS  "):
			lines[i] = "  " + ansiGreen + "PASS" + ansiReset + l[6:]
		case strings.HasPrefix(l, "  FAIL  "):
			lines[i] = "  " + ansiRed + ansiBold + "FAIL" + ansiReset + l[6:]
		case strings.HasPrefix(l, "  "+report.MarkReproduced+"  "):
			lines[i] = "  " + ansiYellow + report.MarkReproduced + ansiReset + l[2+len(report.MarkReproduced):]
		case strings.HasPrefix(l, "  "+report.MarkNotReproduced+"  "):
			lines[i] = "  " + ansiRed + ansiBold + report.MarkNotReproduced + ansiReset + l[2+len(report.MarkNotReproduced):]
		case strings.HasPrefix(l, "  "+report.MarkHolds+"  "):
			lines[i] = "  " + ansiGreen + report.MarkHolds + ansiReset + l[2+len(report.MarkHolds):]
		case strings.HasPrefix(l, "  "+report.MarkBroken+"  "):
			lines[i] = "  " + ansiRed + ansiBold + report.MarkBroken + ansiReset + l[2+len(report.MarkBroken):]
		case strings.HasPrefix(l, "  "+report.MarkNotExercised+"  "):
			lines[i] = "  " + ansiYellow + report.MarkNotExercised + ansiReset + l[2+len(report.MarkNotExercised):]
		case strings.HasPrefix(l, "VERDICT: "):
			body := strings.TrimSuffix(l, "\n")
			lines[i] = ansiBold + verdict + body + ansiReset + l[len(body):]
		}
	}
	return strings.Join(lines, "")
}
