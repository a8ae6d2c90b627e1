package report

import (
	"regexp"
	"strings"
)

// Doc is a report as read back from text: its header (if any) and its
// comparable body. A golden body, or a report with its header stripped,
// has no header: HasHeader is false and Info is empty.
type Doc struct {
	HasHeader bool
	Info      Info
	Body      string // without measured lines
}

// Parse reads a report file, with or without its run-metadata header. ok is
// false when the text is not a report at all: no header, and no report title
// (a line underlined with "=") followed somewhere by a VERDICT line.
func Parse(text string) (doc Doc, ok bool) {
	header, body, hasHeader := SplitHeader(text)
	if !hasHeader && !LooksLikeBody(text) {
		return Doc{}, false
	}
	doc = Doc{HasHeader: hasHeader, Body: dropMeasured(body)}
	if hasHeader {
		doc.Info = ParseHeader(header)
	}
	return doc, true
}

// LooksLikeBody reports whether text reads as a report body: a title
// underlined with "=" of its width, and a VERDICT line.
func LooksLikeBody(text string) bool {
	title, rest, _ := strings.Cut(text, "\n")
	underline, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(title) != "" &&
		underline == strings.Repeat("=", Width(title)) &&
		strings.Contains("\n"+rest, "\nVERDICT: ")
}

// Item is one piece of a body: a line of text, or a whole table.
type Item struct {
	Section string // the "## " section it is in; "" before the first
	Line    string // a text line (without "\n"), when Table is nil
	Table   *Table
}

// Table is a table read back from its box-drawing text.
type Table struct {
	Header []string
	Rows   [][]string
	Lines  []string // as written

	widths []int // each column's width inside its padding, from the top rule
}

// columnWidths reads the widths of a table's columns from its top rule
// (┌──┬───┐), less the space either side of a cell.
func columnWidths(rule string) []int {
	var widths []int
	for _, seg := range strings.Split(strings.Trim(rule, "┌┐"), "┬") {
		widths = append(widths, Width(seg)-2)
	}
	return widths
}

// continues reports whether a table line whose first cell is not empty
// still continues the row above it, as a label too wide for its column
// does: some cell of the line is empty (the cells that did not wrap), and
// every cell that is not could not have gone on the line above, because its
// first word would not have fitted there. The lab's tables have no rule
// between rows, so this is how a wrapped label is told from a new row.
func continues(above, cells []string, widths []int) bool {
	if len(above) != len(cells) || len(widths) != len(cells) {
		return false
	}
	empty := false
	for i, c := range cells {
		if c == "" {
			empty = true
			continue
		}
		first, _, _ := strings.Cut(c, " ")
		if above[i] == "" || Width(above[i])+1+Width(first) <= widths[i] {
			return false
		}
	}
	return empty
}

// Items splits a body into text lines and tables, in order.
func Items(body string) []Item {
	var (
		items   []Item
		section string
		table   *Table
		inRows  bool     // past the rule under the table's header
		last    []string // the cells of the table's previous line
	)
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if table != nil {
			table.Lines = append(table.Lines, line)
			switch {
			case strings.HasPrefix(line, "│"):
				// A cell wrapped onto more lines (RenderTable fits a table to
				// MaxWidth) continues its row: in the header until the rule
				// under it, in a row on a line whose first cell is empty.
				cells := splitCells(line)
				switch {
				case len(table.Header) == 0:
					table.Header = cells
				case !inRows:
					joinCells(table.Header, cells)
				case len(table.Rows) > 0 && len(cells) > 0 && (cells[0] == "" || continues(last, cells, table.widths)):
					joinCells(table.Rows[len(table.Rows)-1], cells)
				default:
					table.Rows = append(table.Rows, cells)
				}
				last = cells
			case strings.HasPrefix(line, "├"):
				inRows = true
			case strings.HasPrefix(line, "└"):
				items = append(items, Item{Section: section, Table: table})
				table = nil
			}
			continue
		}
		if strings.HasPrefix(line, "┌") {
			table, inRows, last = &Table{Lines: []string{line}, widths: columnWidths(line)}, false, nil
			continue
		}
		if t, ok := strings.CutPrefix(line, "## "); ok {
			section = t
		}
		items = append(items, Item{Section: section, Line: line})
	}
	if table != nil { // a table cut short: keep its lines as text
		for _, l := range table.Lines {
			items = append(items, Item{Section: section, Line: l})
		}
	}
	return items
}

// joinCells appends each continuation cell to its cell, after a space.
func joinCells(cells, more []string) {
	for i := range min(len(cells), len(more)) {
		if more[i] != "" {
			cells[i] = strings.TrimSpace(cells[i] + " " + more[i])
		}
	}
}

func splitCells(line string) []string {
	parts := strings.Split(line, "│")
	if len(parts) >= 2 {
		parts = parts[1 : len(parts)-1]
	}
	cells := make([]string, len(parts))
	for i, p := range parts {
		cells[i] = strings.TrimSpace(p)
	}
	return cells
}

var checkLine = regexp.MustCompile(`^  (PASS|FAIL|REPRODUCED|NOT REPRODUCED|HOLDS|BROKEN|N/A)  (.*)$`)

// checkOf is a check as its line's mark tells it: HOLDS and BROKEN mark a
// BEFORE's invariants; a line cannot tell an AFTER's invariants apart.
func checkOf(mark string) Check {
	c := Check{Passed: MarkPassed(mark), Role: RoleDemonstrates, Outcome: outcomeOf(MarkPassed(mark))}
	if mark == MarkHolds || mark == MarkBroken {
		c.Role = RoleInvariant
	}
	if mark == MarkNotExercised {
		c.Outcome = OutcomeNotExercised
	}
	return c
}

// checksSection reports whether a section's title says it holds checks.
func checksSection(title string) bool {
	title = strings.ToLower(title)
	return strings.Contains(title, "checks") || strings.Contains(title, "invariants")
}

// BodyChecks reads the checks back from a body's checks sections (those
// whose title mentions checks or invariants), as Report.Checks writes them.
func BodyChecks(body string) []Check {
	var checks []Check
	var text []string  // each check's whole line, its continuation lines joined
	continues := false // the line before was a check's, or one of its continuations
	for _, it := range Items(body) {
		if it.Table != nil || !checksSection(it.Section) {
			continues = false
			continue
		}
		m := checkLine.FindStringSubmatch(it.Line)
		if m == nil {
			cont, ok := strings.CutPrefix(it.Line, checkIndent)
			continues = continues && ok && strings.TrimSpace(cont) != ""
			if continues {
				text[len(text)-1] += " " + strings.TrimSpace(cont)
			}
			continue
		}
		checks = append(checks, checkOf(m[1]))
		text = append(text, m[2])
		continues = true
	}
	for i := range checks {
		checks[i].Name, checks[i].Detail, _ = strings.Cut(text[i], " → ")
	}
	return checks
}

// BodyVerdict is the body's verdict line without its "VERDICT: " label.
func BodyVerdict(body string) string {
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		if v, ok := strings.CutPrefix(line, "VERDICT: "); ok {
			for _, next := range lines[i+1:] {
				cont, ok := strings.CutPrefix(next, verdictIndent)
				if !ok || strings.TrimSpace(cont) == "" {
					break
				}
				v += " " + strings.TrimSpace(cont)
			}
			return v
		}
	}
	return ""
}

// KindOf is the kind of the run a report records: its record's, else what
// its body shows (a BEFORE's checks are under BeforeChecks, or marked as a
// BEFORE's are); a body that shows neither is read as an AFTER's.
func KindOf(doc Doc) Kind {
	if r := doc.Info.Record; r != nil && r.Kind != "" {
		return r.Kind
	}
	for _, it := range Items(doc.Body) {
		if it.Table != nil {
			continue
		}
		if it.Line == "## "+BeforeChecks || it.Line == "## "+BeforeInvariants {
			return Before
		}
		if m := checkLine.FindStringSubmatch(it.Line); m != nil && checksSection(it.Section) &&
			(m[1] == MarkReproduced || m[1] == MarkNotReproduced) {
			return Before
		}
	}
	return After
}

// NotExercisedVerdict reports whether a verdict (as a body or record says
// it) is the one of a run whose mechanism was not exercised.
func NotExercisedVerdict(verdict string) bool {
	return strings.HasPrefix(strings.TrimSpace(verdict), VerdictNotExercised)
}
