package cmdutil

import (
	"io"
	"os"
	"strings"

	"outboxlab/core/report"
)

const (
	AnsiReset  = "\x1b[0m"
	AnsiRed    = "\x1b[31m"
	AnsiGreen  = "\x1b[32m"
	AnsiYellow = "\x1b[33m"
	AnsiBold   = "\x1b[1m"
	AnsiItalic = "\x1b[3m"
	// ansiReverse swaps foreground and background: the step view's mark for
	// a changed cell's new value, readable in any colour scheme.
	AnsiReverse = "\x1b[7m"
)

// UseColor reports whether w is a terminal that wants colour: never when
// NO_COLOR is set to a non-empty value (https://no-color.org: an empty one
// does not count), never on a dumb terminal, never into a file or pipe.
func UseColor(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && smartTerminal(w)
}

// smartTerminal reports whether w is a terminal that understands escape
// codes (progress lines and colour go only there): not TERM=dumb.
func smartTerminal(w io.Writer) bool { return report.Redrawable(w) }

// Colorize marks PASS and FAIL (a BEFORE's REPRODUCED and NOT REPRODUCED,
// HOLDS and BROKEN; N/A) and the verdict line for the terminal. The
// report file is always written from the plain text, never from this.
func Colorize(text string, res report.Result) string {
	verdict := AnsiGreen
	switch {
	case report.NotExercisedVerdict(res.Verdict):
		verdict = AnsiYellow // nothing broke, but nothing was shown either
	case !res.Passed:
		verdict = AnsiRed
	case res.Kind == report.Before:
		verdict = AnsiYellow // the failure mode, reproduced as intended
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "  PASS  "):
			lines[i] = "  " + AnsiGreen + "PASS" + AnsiReset + l[6:]
		case strings.HasPrefix(l, "  FAIL  "):
			lines[i] = "  " + AnsiRed + AnsiBold + "FAIL" + AnsiReset + l[6:]
		case strings.HasPrefix(l, "  "+report.MarkReproduced+"  "):
			lines[i] = "  " + AnsiYellow + report.MarkReproduced + AnsiReset + l[2+len(report.MarkReproduced):]
		case strings.HasPrefix(l, "  "+report.MarkNotReproduced+"  "):
			lines[i] = "  " + AnsiRed + AnsiBold + report.MarkNotReproduced + AnsiReset + l[2+len(report.MarkNotReproduced):]
		case strings.HasPrefix(l, "  "+report.MarkHolds+"  "):
			lines[i] = "  " + AnsiGreen + report.MarkHolds + AnsiReset + l[2+len(report.MarkHolds):]
		case strings.HasPrefix(l, "  "+report.MarkBroken+"  "):
			lines[i] = "  " + AnsiRed + AnsiBold + report.MarkBroken + AnsiReset + l[2+len(report.MarkBroken):]
		case strings.HasPrefix(l, "  "+report.MarkNotExercised+"  "):
			lines[i] = "  " + AnsiYellow + report.MarkNotExercised + AnsiReset + l[2+len(report.MarkNotExercised):]
		case strings.HasPrefix(l, "VERDICT: "):
			body := strings.TrimSuffix(l, "\n")
			lines[i] = AnsiBold + verdict + body + AnsiReset + l[len(body):]
		}
	}
	return strings.Join(lines, "")
}
