package report

import (
	"fmt"
	"strings"
	"testing"
)

// TestViewReadsCleanly lays every golden body out at 100, 80 and 60
// columns and reads what a student would trip over (issue 43, at 80
// columns):
//   - a line wider than the width;
//   - a word broken: every word of the view is a word of the body (a table
//     cell split inside a word, DeadLetter|ed or PRV-TX-|0001, makes
//     fragments the body never had);
//   - a timeline event whose continuation lines are not all under its text:
//     each at one indent, past the event's stamp (not under its key or its
//     worker, nor at two indents);
//   - text wrapped twice: a continuation line of an event whose first word
//     would have fitted at the end of the line before ("the client was" /
//     "told PAY-002 failed"), unless it starts at an arrow (→), where the
//     timelines break on purpose;
//   - a moment of a setup field (a line starting with a clock stamp) run
//     into the field's line before it.
//
// Figures are drawn anew for a narrower terminal from their Figure (View's
// figures), which a golden body does not keep: their lines are left out of
// the word check.
func TestViewReadsCleanly(t *testing.T) {
	for name, body := range goldens(t) {
		words := map[string]bool{}
		for _, w := range viewWords(body) {
			words[w] = true
		}
		for _, width := range []int{100, 80, 60} {
			view := View(body, width)
			what := fmt.Sprintf("%s at %d", name, width)
			for _, l := range strings.Split(view, "\n") {
				if Width(l) > width {
					t.Errorf("%s: %d columns: %s", what, Width(l), l)
				}
			}
			if width < MaxWidth {
				for _, w := range viewWords(withoutFigures(view)) {
					if !words[w] {
						t.Errorf("%s: %q is no word of the body: a word was broken", what, w)
					}
				}
			}
			for _, problem := range timelineProblems(view, width) {
				t.Errorf("%s: %s", what, problem)
			}
			for _, moment := range setupMoments(body) {
				if !startsALine(view, moment) {
					t.Errorf("%s: the setup's moment %q does not start a line of its own", what, moment)
				}
			}
		}
	}
}

// viewWords are the words of text, table rules and borders left out.
func viewWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\n' || r == '│' }) {
		if strings.Trim(w, "=─┌┐└┘├┤┬┴┼") != "" {
			out = append(out, w)
		}
	}
	return out
}

// withoutFigures drops the lines of the pictures a body draws (the
// attempts, a timeline's lanes): from a line of a figure's frame (│ and ·
// or ▏▎▍▌▋▊▉█) to the next blank line.
func withoutFigures(view string) string {
	var out []string
	in := false
	for _, l := range strings.Split(view, "\n") {
		if strings.ContainsAny(l, "·▏▎▍▌▋▊▉█") || strings.Contains(l, "┆") {
			in = true
		}
		if strings.TrimSpace(l) == "" {
			in = false
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// timelineProblems reads the events of the view's timeline sections (a
// line starting with a clock stamp) with their continuation lines (the
// indented lines after them, up to the next event, a blank line, or a
// summary line at the stamp's column: "… and 4 lines alike").
func timelineProblems(view string, width int) []string {
	var problems []string
	lines := strings.Split(view, "\n")
	inTimeline := false
	for i := 0; i < len(lines); i++ {
		if title, ok := strings.CutPrefix(lines[i], "## "); ok {
			inTimeline = strings.Contains(strings.ToLower(title), "timeline")
		}
		if !inTimeline || !isEvent(lines[i]) {
			continue
		}
		stamp := Width(eventStamp.FindString(lines[i]))
		var leads []int
		for j := i + 1; j < len(lines); j++ {
			l := lines[j]
			lead := len(l) - len(strings.TrimLeft(l, " "))
			if lead == 0 || lead == len(l) || isEvent(l) || lead == stamp && strings.HasPrefix(l[lead:], "…") {
				break
			}
			leads = append(leads, lead)
			if first := firstWord(l); !strings.HasPrefix(first, "→") && Width(lines[j-1])+1+Width(first) <= width {
				problems = append(problems, fmt.Sprintf("%q would have fitted at the end of the line before (wrapped twice):\n%s\n%s",
					first, lines[j-1], l))
			}
		}
		// The event's text starts at its stamp's column only when no
		// column (a key, a worker: a word and two spaces) comes first.
		key, _, _ := strings.Cut(lines[i][stamp:], " ")
		textAtStamp := !strings.HasPrefix(lines[i][stamp+len(key):], "  ")
		for _, lead := range leads {
			if lead < stamp || lead == stamp && !textAtStamp || lead != leads[0] {
				problems = append(problems, fmt.Sprintf("continuation lines at columns %v, not under the event's text:\n%s",
					leads, strings.Join(lines[i:i+1+len(leads)], "\n")))
				break
			}
		}
	}
	return problems
}

// setupMoments are the setup's lines (before the first section) that start,
// after their label or indent, with a clock stamp: each a moment of its own.
func setupMoments(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "## ") {
			break
		}
		col := textColumn(l)
		if clockStamp.MatchString(l[len(col):]) {
			out = append(out, strings.TrimSpace(clockStamp.FindString(l[len(col):])))
		}
	}
	return out
}

// startsALine reports whether a line of view starts with text, after its
// indent or its setup label.
func startsALine(view, text string) bool {
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l[len(textColumn(l)):], text) {
			return true
		}
	}
	return false
}
