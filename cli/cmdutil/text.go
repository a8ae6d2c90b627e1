package cmdutil

import (
	"strings"

	"outboxlab/core/report"
)

// Pad fills s with spaces to width columns.
func Pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-report.Width(s)))
}

// Indent puts prefix before every line of text.
func Indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

// FitLines wraps each line of text wider than report.MaxWidth at spaces,
// never inside a command forLayout glued (and unglues it). A continuation
// line keeps the line's diff mark (+, - or ~) and is indented two more than
// the line's text, so it reads as part of the same change.
func FitLines(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		if report.Width(l) <= report.MaxWidth {
			out = append(out, l)
			continue
		}
		mark, rest := "", l
		if len(l) > 1 && strings.ContainsRune("+-~", rune(l[0])) && l[1] == ' ' {
			mark, rest = l[:1], l[1:]
		}
		lead := rest[:len(rest)-len(strings.TrimLeft(rest, " "))]
		cont := mark + lead + "  "
		wrapped := strings.Split(report.Wrap(strings.TrimLeft(rest, " "), report.MaxWidth-report.Width(cont)), "\n")
		out = append(out, mark+lead+wrapped[0])
		for _, w := range wrapped[1:] {
			out = append(out, cont+w)
		}
	}
	return report.Unglue(strings.Join(out, "\n"))
}

// Cut keeps a table cell within most columns, so the table fits in 100.
func Cut(s string, most int) string {
	r := []rune(s)
	if len(r) <= most {
		return s
	}
	return string(r[:most-1]) + "…"
}

// OneLine folds an error onto one line and shows any control character in
// it escaped (see show), so a hostile argument can never write to the terminal raw.
func OneLine(s string) string {
	return Show(strings.Join(strings.Fields(s), " "))
}
