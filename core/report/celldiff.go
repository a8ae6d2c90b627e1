package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/pmezard/go-difflib/difflib"
)

// Echo is a parameter the two runs set differently: lines that differ only
// where one prints A and the other B echo the flag, and are counted, not shown.
type Echo struct{ Name, A, B string }

// BodyDiff is the readable difference of two bodies: text lines as a
// unified diff, tables cell by cell (a wider cell re-pads no other row).
type BodyDiff struct {
	Text   string // the lines to print; empty when only echoes differ
	Echoed int    // lines that differ only where a changed parameter is printed
}

// Same reports whether the bodies have no difference at all.
func (d BodyDiff) Same() bool { return d.Text == "" && d.Echoed == 0 }

type entry struct {
	op      byte // ' ' context, '-' only in A, '+' only in B, '~' a changed table row or column
	section string
	text    string
}

// CellDiff compares two bodies by items: text lines by a line diff, tables
// with the same header by rows (matched by their first cell) and cells.
func CellDiff(bodyA, bodyB string, echoes []Echo) BodyDiff {
	a, b := Items(bodyA), Items(bodyB)
	m := difflib.NewMatcher(itemKeys(a), itemKeys(b))
	var (
		out    []entry
		echoed int
	)
	for _, op := range m.GetOpCodes() {
		if op.Tag == 'e' {
			for k := 0; k < op.I2-op.I1; k++ {
				ia, ib := a[op.I1+k], b[op.J1+k]
				if ia.Table == nil {
					out = append(out, entry{' ', ia.Section, ia.Line})
					continue
				}
				es, n := tableDiff(ib.Section, ia.Table, ib.Table, echoes)
				out, echoed = append(out, es...), echoed+n
			}
			continue
		}
		es, n := linesDiff(itemLines(a[op.I1:op.I2]), itemLines(b[op.J1:op.J2]), echoes)
		out, echoed = append(out, es...), echoed+n
	}
	return BodyDiff{Text: render(out), Echoed: echoed}
}

func itemKeys(items []Item) []string {
	keys := make([]string, len(items))
	for i, it := range items {
		if it.Table != nil {
			keys[i] = "\x00table\x00" + strings.Join(it.Table.Header, "\x1f")
		} else {
			keys[i] = it.Line
		}
	}
	return keys
}

type sectionLine struct{ section, line string }

func itemLines(items []Item) []sectionLine {
	var out []sectionLine
	for _, it := range items {
		if it.Table == nil {
			out = append(out, sectionLine{it.Section, it.Line})
			continue
		}
		for _, l := range it.Table.Lines {
			out = append(out, sectionLine{it.Section, l})
		}
	}
	return out
}

// linesDiff is a run of lines that differ: pairs that differ only by
// echoed parameter values are counted; the rest are shown as - and +.
func linesDiff(a, b []sectionLine, echoes []Echo) ([]entry, int) {
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i, l := range a {
		ka[i] = echoKey(l.line, echoes, true)
	}
	for i, l := range b {
		kb[i] = echoKey(l.line, echoes, false)
	}
	var (
		out    []entry
		echoed int
	)
	for _, op := range difflib.NewMatcher(ka, kb).GetOpCodes() {
		if op.Tag == 'e' {
			echoed += op.I2 - op.I1
			continue
		}
		for _, l := range a[op.I1:op.I2] {
			out = append(out, entry{'-', l.section, l.line})
		}
		for _, l := range b[op.J1:op.J2] {
			out = append(out, entry{'+', l.section, l.line})
		}
	}
	return out, echoed
}

// echoKey replaces, in line, every word equal to an echoed parameter's value
// on this side (A or B) with the parameter's name, where the word is the
// flag's value in its place (see inPlace), never an equal number elsewhere:
// "attempt 1/4" and "MaxAttempts 4" echo --max-attempts 4, "4 Paid" does not.
func echoKey(line string, echoes []Echo, sideA bool) string {
	if len(echoes) == 0 {
		return line
	}
	words := splitWords(line)
	for i, w := range words {
		for _, e := range echoes {
			v := e.B
			if sideA {
				v = e.A
			}
			if w == v && inPlace(words, i, e.Name) {
				words[i] = "\x00" + e.Name + "\x00"
			}
		}
	}
	return strings.Join(words, "")
}

// inPlace reports whether words[i] stands where a flag's value is printed:
// as the limit after a count ("1/4": a number, "/", the value), or right
// after the flag's own name, however it is spelt (MaxAttempts 4,
// max-attempts=4, --max-attempts 4, "max attempts: 4").
func inPlace(words []string, i int, flag string) bool {
	if i >= 2 && words[i-1] == "/" && isNumber(words[i-2]) {
		return true
	}
	before := strings.TrimRight(strings.Join(words[:i], ""), " =:(")
	return strings.HasSuffix(squash(before), squash(flag))
}

// squash folds a name's spellings together: lower case, without - _ and spaces.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ' ' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

func isNumber(w string) bool { return w != "" && strings.Trim(w, "0123456789.") == "" }

// splitWords cuts s into runs of letters, digits, '.' and '_', and the runs between them.
func splitWords(s string) []string {
	var words []string
	start := 0
	inWord := false
	for i, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_'
		if i > 0 && w != inWord {
			words = append(words, s[start:i])
			start = i
		}
		inWord = w
	}
	return append(words, s[start:])
}

// tableDiff compares two tables with the same header row by row, matched by
// row label; columns that hold an echoed value in every row are said once.
func tableDiff(section string, a, b *Table, echoes []Echo) ([]entry, int) {
	var (
		out    []entry
		echoed int
	)
	skip := map[int]bool{}
	for c, name := range a.Header {
		for _, e := range echoes {
			// A column is the flag's only when its header names the flag
			// (MaxAttempts): an Attempts column that reaches the limit in
			// every row is a result.
			if strings.Contains(squash(name), squash(e.Name)) && columnIs(a.Rows, c, e.A) && columnIs(b.Rows, c, e.B) {
				skip[c] = true
				out = append(out, entry{'~', section, fmt.Sprintf("column %s: %s → %s in every row (--%s)", name, e.A, e.B, e.Name)})
				echoed++
			}
		}
	}
	ka, kb := rowKeys(a.Rows), rowKeys(b.Rows)
	for _, op := range difflib.NewMatcher(ka, kb).GetOpCodes() {
		if op.Tag == 'e' {
			for k := 0; k < op.I2-op.I1; k++ {
				ra, rb := a.Rows[op.I1+k], b.Rows[op.J1+k]
				var changes []string
				for c := range a.Header {
					if !skip[c] && cell(ra, c) != cell(rb, c) && !echoCell(cell(ra, c), cell(rb, c), echoes) {
						changes = append(changes, fmt.Sprintf("%s %s → %s", a.Header[c], cell(ra, c), cell(rb, c)))
					}
				}
				if len(changes) > 0 {
					out = append(out, entry{'~', section, "[" + rowLabel(ra) + "] " + strings.Join(changes, "; ")})
				} else if !slices.Equal(ra, rb) {
					echoed++
				}
			}
			continue
		}
		for _, r := range a.Rows[op.I1:op.I2] {
			out = append(out, entry{'-', section, strings.Join(r, " │ ")})
		}
		for _, r := range b.Rows[op.J1:op.J2] {
			out = append(out, entry{'+', section, strings.Join(r, " │ ")})
		}
	}
	return out, echoed
}

// echoCell reports whether two cells differ only in a limit printed after a
// count, once: "1/3" and "1/5" under --max-attempts 3 → 5 echo it. "3/3"
// and "5/5" do not (the count changed too), nor does "3 (= MaxAttempts)" and
// "5 (= MaxAttempts)" or a cell that is only the value: a figure that
// equals the flag is a result (a column that is the value in every row is
// said once by tableDiff).
func echoCell(a, b string, echoes []Echo) bool {
	wa, wb := splitWords(a), splitWords(b)
	if len(wa) != len(wb) || len(wa) < 2 {
		return false
	}
	differ := 0
	for i := range wa {
		if wa[i] == wb[i] {
			continue
		}
		differ++
		limit := i > 0 && strings.HasSuffix(wa[i-1], "/")
		if !limit || !slices.ContainsFunc(echoes, func(e Echo) bool { return wa[i] == e.A && wb[i] == e.B }) {
			return false
		}
	}
	return differ == 1
}

func cell(row []string, c int) string {
	if c < len(row) {
		return row[c]
	}
	return ""
}

func columnIs(rows [][]string, c int, v string) bool {
	if len(rows) == 0 {
		return false
	}
	for _, r := range rows {
		if cell(r, c) != v {
			return false
		}
	}
	return true
}

// rowKeys matches rows by their label when labels are unique within the
// table, and by the whole row otherwise.
func rowKeys(rows [][]string) []string {
	keys := make([]string, len(rows))
	seen := map[string]bool{}
	for i, r := range rows {
		keys[i] = rowLabel(r)
		if seen[keys[i]] {
			for j, r := range rows {
				keys[j] = strings.Join(r, "\x1f")
			}
			return keys
		}
		seen[keys[i]] = true
	}
	return keys
}

// rowLabel names a row: its first cell, with the second when the first is
// only a number (an Id or a #).
func rowLabel(r []string) string {
	first := cell(r, 0)
	if first != "" && strings.Trim(first, "0123456789") == "" && len(r) > 1 {
		return first + " " + r[1]
	}
	return first
}

// render prints entries with one line of context around changes, each
// run of them under an "@@ section" line.
func render(es []entry) string {
	show := make([]bool, len(es))
	for i, e := range es {
		if e.op == ' ' {
			continue
		}
		show[i] = true
		if i > 0 && es[i-1].op == ' ' && es[i-1].text != "" {
			show[i-1] = true
		}
		if i+1 < len(es) && es[i+1].op == ' ' && es[i+1].text != "" {
			show[i+1] = true
		}
	}
	var b strings.Builder
	last := -2
	for i, e := range es {
		if !show[i] {
			continue
		}
		if i != last+1 || es[last].section != e.section {
			name := e.section
			if name == "" {
				name = "top (title and setup)"
			}
			fmt.Fprintf(&b, "@@ %s\n", name)
		}
		fmt.Fprintf(&b, "%c %s\n", e.op, e.text)
		last = i
	}
	return b.String()
}
