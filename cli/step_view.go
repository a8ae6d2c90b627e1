package cli

// Drawing the --step view: the event shown, what it changed, the leases,
// what is next due and every table's rows as they then stood (before the
// first event: as seeded), in a window that scrolls when the text is
// longer than the terminal; the keys stay in sight at the bottom.

import (
	"fmt"
	"regexp"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/changelog"
	"outboxlab/core/report"
)

// stepKeysHelp is the list ? shows: every key the view knows.
var stepKeysHelp = [][2]string{
	{"n → space Enter", "next event"},
	{"p ← Backspace", "previous event"},
	{"g Home", "the tables as seeded"},
	{"G End", "the last event"},
	{"f", "next failure"},
	{"c", "next change a check reads"},
	{"↓ j  ↑ k", "scroll a line"},
	{"PgDn ctrl+f  PgUp ctrl+b", "scroll a page"},
	{"?", "this list (any key closes it)"},
	{"q Esc ctrl+c", "quit"},
}

// View is the screen: the text in sight, then the keys.
func (m stepModel) View() string {
	text, foot := m.text(), m.footer()
	room := m.room()
	end := min(m.scroll+room, len(text))
	shown := append([]string{}, text[m.scroll:end]...)
	return strings.Join(append(shown, foot...), "\n")
}

// room is how many lines of text the window shows above the keys, a line
// spared so that the line break after the last never scrolls the terminal.
func (m stepModel) room() int { return max(m.height-1-len(m.footer()), 1) }

// clamp keeps the scroll inside the text.
func (m stepModel) clamp() stepModel {
	m.scroll = max(min(m.scroll, len(m.text())-m.room()), 0)
	return m
}

// footer is what stays at the bottom: the status of the last key, where
// the window is in a text longer than it, and the keys.
func (m stepModel) footer() []string {
	var out []string
	if m.status != "" {
		out = append(out, m.mark(m.status, cmdutil.AnsiItalic))
	}
	keys := m.wrap("n/→ next · p/← previous · f failure · c check · ? keys · q quit")
	if n, room := len(m.text()), m.height-1-len(out)-len(keys); n > room {
		room = max(room-1, 1) // this line takes one
		top := min(m.scroll, max(n-room, 0))
		out = append(out, m.mark(fmt.Sprintf("lines %d–%d of %d · ↓ ↑ scroll", top+1, min(top+room, n), n), cmdutil.AnsiItalic))
	}
	return append(out, keys...)
}

// wrap wraps each line at the view's width, its words whole, a line going
// on under its text (stepHanging).
func (m stepModel) wrap(lines ...string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(report.WrapHanging(l, m.width, stepHanging(l)), "\n")...)
	}
	return out
}

// stepStamp is a line of the view starting with a clock stamp: an event's.
var stepStamp = regexp.MustCompile(`^ *\d\d:\d\d:\d\d\.\d{3}Z\S* `)

// stepHanging is where a line of the view wrapped goes on: an event's under
// its text (past its stamp and key: report.EventIndent); another's two
// columns past its own indent.
func stepHanging(l string) string {
	if stamp := stepStamp.FindString(l); stamp != "" {
		if text := report.EventIndent(l); len(text) > len(stamp) {
			return text
		}
		return strings.Repeat(" ", len(stamp))
	}
	return strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " "))+2)
}

// text is every line of the screen but the footer: the list of keys, or
// the event and the tables.
func (m stepModel) text() []string {
	if m.help {
		out := m.wrap(m.mark("Keys", cmdutil.AnsiBold))
		for _, k := range stepKeysHelp {
			out = append(out, m.wrap(fmt.Sprintf("  %-26s %s", k[0], k[1]))...)
		}
		return out
	}
	var out []string
	if m.pos == 0 {
		// Numbered as replay.html numbers them: step 1 is the seeded
		// tables, step k+1 the k-th event.
		out = m.wrap(m.mark(fmt.Sprintf("step 1 of %d · seeded", len(m.log.Steps)+1), cmdutil.AnsiBold),
			"The tables as seeded, before the first event. n: next event.")
	} else {
		s := m.log.Steps[m.pos-1]
		out = m.wrap(m.mark(fmt.Sprintf("step %d of %d · %s · %s", m.pos+1, len(m.log.Steps)+1, s.Design, s.At), cmdutil.AnsiBold))
		for _, l := range strings.Split(s.Text, "\n") {
			out = append(out, m.wrap("  "+l)...)
		}
		out = append(out, "", "Changed (old → new):")
		if len(s.Changes) == 0 {
			out = append(out, "  no row changed")
		}
		for _, c := range s.Changes {
			out = append(out, m.wrap("  "+m.change(c))...)
		}
	}
	state := m.log.State(m.shownN())[m.design()]
	out = append(append(out, "", "Leases:"), m.wrap(indented(leases(state))...)...)
	out = append(append(out, "Next due:"), m.wrap(indented(nextDue(state))...)...)
	return append(out, m.tables(state)...)
}

// tables are the design's rows as they stand at the event shown, each row
// as its columns and values.
func (m stepModel) tables(state []changelog.Table) []string {
	title := "Rows after this event"
	if m.pos == 0 {
		title = "Rows as seeded"
	}
	out := []string{"", title + " (" + m.design() + "):"}
	for _, t := range state {
		out = append(out, "  "+t.Name+" · "+report.Plural(len(t.Rows), "row"))
		for _, r := range t.Rows {
			cells := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				cells[i] = c + " " + cellText(r[i])
			}
			out = append(out, m.wrapIndented(strings.Join(cells, " · "), "    ", "      ")...)
		}
	}
	return out
}

// wrapIndented wraps a long line at the view's width, its first line under
// first, the others under rest.
func (m stepModel) wrapIndented(line, first, rest string) []string {
	lines := strings.Split(report.Wrap(line, m.width-len(rest)), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}
