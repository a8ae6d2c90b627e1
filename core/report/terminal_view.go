package report

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"outboxlab/core/plot"
)

// View is body as a terminal of width columns shows it. The report file
// keeps the body as it is (MaxWidth wide, compare's markers on its lines);
// the view drops the markers and, on a terminal narrower than MaxWidth,
// lays the body out again from its items (Items): each figure drawn on
// fewer cells (plot.Figure.TextAt; figures are the report's, found in the
// body by their text), each table fitted to the width with wrapped cells
// or, when even its narrowest columns are too wide, stacked one field a
// line, and each line too wide broken again with its hanging indent, the
// continuation lines it was wrapped onto at MaxWidth joined back first.
// A command Commands glued is never broken (see breakLine). At MaxWidth and
// wider only a line too wide is laid out again: one that a longer
// invocation than LabName widened.
func View(body string, width int, figures ...plot.Figure) string {
	body = dropMarkers(body)
	if width >= MaxWidth {
		return Fit(body, width)
	}
	for _, f := range figures {
		if f.Text != "" && widest(f.Text) > width && strings.Contains(body, f.Text) {
			body = strings.Replace(body, f.Text, f.TextAt(width), 1)
		}
	}
	return Fit(body, width)
}

// Fit lays text out for width columns: a line or a table that fits is kept
// as it is; a table too wide is fitted (tableAt), a line too wide broken
// again (reflow). It is the lab's one wrapper of finished text: the
// terminal's view of a report (View) and help use it. It keeps each command
// Commands glued whole and unglues it.
func Fit(text string, width int) string {
	if widest(text) <= width {
		return Unglue(text)
	}
	var out, prose []string
	for _, it := range Items(text) {
		if it.Table == nil {
			prose = append(prose, it.Line)
			continue
		}
		out = append(append(out, reflow(prose, width)...), tableAt(it.Table, width)...)
		prose = nil
	}
	out = append(out, reflow(prose, width)...)
	fitted := strings.Join(out, "\n")
	if strings.HasSuffix(text, "\n") {
		fitted += "\n"
	}
	return Unglue(fitted)
}

// dropMarkers removes compare's markers ([measured], [database]) from the
// ends of lines and section titles: they tell compare what to skip, and
// the report file keeps them for it.
func dropMarkers(body string) string {
	if !strings.Contains(body, MeasuredMarker) && !strings.Contains(body, DatabaseMarker) {
		return body
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		for _, m := range []string{MeasuredMarker, DatabaseMarker} {
			l = strings.TrimSuffix(l, " "+m)
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// reflow fits lines of text to width. A line that fits is kept. A title
// too wide is broken and underlined again. Any other line too wide is
// joined with the lines it continues on (those Line wrapped it onto at
// MaxWidth, under its hanging indent, or a line going on at the same
// indent: goesOn) and broken again at width under the same indent: under
// its label's text, or, with no label, under its own first word.
func reflow(lines []string, width int) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if isEvent(l) {
			n := eventLines(lines, i)
			out = append(out, reflowEvent(lines[i:i+n], width)...)
			i += n - 1
			continue
		}
		if Width(l) <= width {
			out = append(out, l)
			continue
		}
		if i+1 < len(lines) && lines[i+1] == strings.Repeat("=", Width(l)) {
			title := breakLine(l, width, "")
			out = append(append(out, title...), strings.Repeat("=", widest(strings.Join(title, "\n"))))
			i++
			continue
		}
		// Line wrapped it at MaxWidth under wrapped (or under itself, an
		// author's second line); it goes on under indent.
		wrapped := continuationIndent(l)
		indent := wrapped
		if indent == leadOf(l)+"    " {
			indent = leadOf(l) // a line without a label goes on under itself
		}
		sameLead := false
		continues := func(prev, next string) bool {
			return continuesAt(prev, next, wrapped) || continuesAt(prev, next, indent)
		}
		if i+1 < len(lines) && !continues(l, lines[i+1]) && goesOn(l, lines[i+1]) {
			indent, sameLead = textColumn(l), true
		}
		text, prev := l, l
		for i+1 < len(lines) && (continues(prev, lines[i+1]) || sameLead && goesOn(l, lines[i+1])) {
			i++
			prev = lines[i]
			text += " " + strings.TrimSpace(prev)
		}
		if col := textColumn(l); clockStamp.MatchString(l[len(col):]) {
			indent = col + strings.Repeat(" ", len(clockStamp.FindString(l[len(col):]))) // under the moment's text
		}
		if Width(indent) > width/2 {
			indent = leadOf(l) + "    "
		}
		out = append(out, breakLine(text, width, indent)...)
	}
	return out
}

// continuationIndent is where a line's continuation starts: a check's and
// the verdict's where Report writes them (checkIndent, verdictIndent),
// any other line's under its text (hangingIndent).
func continuationIndent(l string) string {
	switch {
	case checkLine.MatchString(l):
		return checkIndent
	case strings.HasPrefix(l, "VERDICT: "):
		return verdictIndent
	case labelColon.MatchString(l):
		return strings.Repeat(" ", Width(labelColon.FindString(l)))
	}
	return hangingIndent(l)
}

// labelColon is an indented label ending in a colon and the spaces after
// it, as Next writes them ("  Course: ", "  Try:    "): a line wrapped
// after it goes on under its text.
var labelColon = regexp.MustCompile(`^ {1,4}[A-Z][A-Za-z]*: +`)

// continuesAt reports whether next is a continuation line of prev as a
// MaxWidth line breaker writes it: indented by indent, with no label of
// its own, and its first word would not have fitted at the end of prev.
func continuesAt(prev, next, indent string) bool {
	rest, ok := strings.CutPrefix(next, indent)
	if !ok || rest == "" || rest[0] == ' ' || hangingIndent(rest) != "    " || clockStamp.MatchString(rest) {
		return false // a line with a label or a moment of its own is no continuation
	}
	first, _, _ := strings.Cut(rest, " ")
	return Width(prev)+1+Width(first) > MaxWidth
}

// goesOn reports whether next goes on with the text of l, as a setup
// field written over two lines does: both are indented the same, under a
// label column (8 columns or more; the field's first line, at the margin,
// counts its label), and next starts with a word, not with an arrow, a mark
// or a clock stamp of its own. A check line never goes on; nor does another
// line at the margin, unless Line wrapped it (continuesAt): lines there are
// often facts of their own.
func goesOn(l, next string) bool {
	lead := textColumn(l)
	if len(lead) < 8 || leadOf(next) != lead || len(next) == len(lead) || checkLine.MatchString(l) {
		return false
	}
	if clockStamp.MatchString(next[len(lead):]) {
		return false // a moment of its own ("09:00:01.000Z worker-a and worker-b poll …")
	}
	r, _ := utf8.DecodeRuneInString(next[len(lead):])
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '(' || r == '"'
}

// textColumn is where the text of l starts: after its spaces, or, for a
// setup field's first line, after its label.
func textColumn(l string) string {
	if lead := leadOf(l); lead != "" || !setupLabel.MatchString(l) {
		return lead
	}
	return hangingIndent(l)
}

// setupLabel is a setup field's label at the margin and the spaces after
// it ("Workers   ", "Demo cap  ").
var setupLabel = regexp.MustCompile(`^[A-Z][a-z]+( [a-z]+)?  +\S`)

// leadOf is the spaces l starts with.
func leadOf(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " "))] }

// tableAt is t laid out for width columns: as written when it fits, its
// cells wrapped between words when that is enough (fitTable), else stacked:
// a word in a cell is never broken (DeadLetter|ed, PRV-TX-|0001).
func tableAt(t *Table, width int) []string {
	if widest(strings.Join(t.Lines, "\n")) <= width {
		return t.Lines
	}
	for _, r := range t.Rows {
		if len(r) != len(t.Header) {
			return stacked(t, width)
		}
	}
	if h, r, ok := fitTable(t.Header, t.Rows, width, wholeWords); ok {
		// A row whose cells wrap is ruled off from the next, so that a
		// reader tells its lines from new rows.
		var ruled []tablewriter.Option
		if slices.ContainsFunc(r, func(row []string) bool { return strings.Contains(strings.Join(row, ""), "\n") }) {
			ruled = append(ruled, tablewriter.WithRendition(tw.Rendition{
				Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}}}))
		}
		return strings.Split(strings.TrimSuffix(renderTable(h, r, ruled...), "\n"), "\n")
	}
	return stacked(t, width)
}

// stacked is a table too wide for width even with wrapped cells, one row
// at a time: the first column's header and cell on a line, then each other
// cell under its header's name.
func stacked(t *Table, width int) []string {
	labelW := 0
	for _, h := range t.Header[min(1, len(t.Header)):] {
		labelW = max(labelW, Width(h))
	}
	labelW = min(labelW, width/3)
	var out []string
	for _, row := range t.Rows {
		for i, c := range row {
			name := ""
			if i < len(t.Header) {
				name = t.Header[i]
			}
			if i == 0 {
				out = append(out, breakLine(strings.TrimSpace(name+" "+c), width, "    ")...)
				continue
			}
			label := "  " + name + strings.Repeat(" ", max(labelW-Width(name), 0)) + "  "
			if Width(name) > labelW {
				out = append(out, breakLine("  "+name, width, "      ")...)
				label = strings.Repeat(" ", labelW+4)
			}
			out = append(out, breakLine(label+Dash(c), width, strings.Repeat(" ", labelW+4))...)
		}
	}
	return out
}

// Brief is the story of a body alone, for --brief: its title, the setup in
// a line or two (the first setup field after the scenario's name, pair and
// source), then its timeline, its checks, its verdict and its Next
// sections, whole (where to go on is kept: a brief run leads on too).
// The report file keeps the whole body; Brief changes only what the
// terminal shows.
func Brief(body string) string {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	var out []string
	i := 0
	if len(lines) >= 2 && strings.Trim(lines[1], "=") == "" {
		out, i = append(out, lines[0], lines[1]), 2
	}
	// The setup: the lines before the first section.
	setup := 0
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "## "); i++ {
		label, _, _ := strings.Cut(lines[i], " ")
		switch {
		case lines[i] == "" || label == "Scenario" || label == "Pairs" || label == "Source":
		case setup == 0 && label != "":
			setup++
			out = append(out, lines[i])
		case setup == 1 && label == "":
			setup++ // the field's second line
			out = append(out, lines[i])
		default:
			setup = 2
		}
	}
	keep := false
	for ; i < len(lines); i++ {
		if title, ok := strings.CutPrefix(lines[i], "## "); ok {
			keep = briefSection(title)
			if keep && len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		}
		if keep {
			out = append(out, lines[i])
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}

// briefSection reports whether a section of that title is in the brief
// story: a timeline, checks, invariants, the verdict.
func briefSection(title string) bool {
	return strings.Contains(strings.ToLower(title), "timeline") || checksSection(title) || title == "Verdict" || title == "Next"
}
