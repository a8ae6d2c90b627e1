package report

import (
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// MaxWidth is the widest a line of the lab's output may be, in terminal
// columns: box-drawing characters count 1, emoji 2.
const MaxWidth = 100

// Width is the display width of s in a terminal, as MaxWidth counts it: a
// CJK character or an emoji takes two columns, a box-drawing character one,
// the same on every machine whatever its locale. It is the lab's one width:
// titles' underlines, wrapping, inspect's columns and the width tests use it.
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return twwidth.WidthWithOptions(s, twwidth.Options{})
		}
	}
	return len(s)
}

// widest is the width of the widest line of text.
func widest(text string) int {
	w := 0
	for _, l := range strings.Split(text, "\n") {
		w = max(w, Width(l))
	}
	return w
}

// minColumn is the narrowest fitTable makes a column it wraps in a report,
// breaking words when it must. A terminal's view (View) never breaks a word
// in a cell (wholeWords): a table that cannot fit with its words whole is
// stacked instead.
const (
	minColumn  = 10
	wholeWords = 0
)

// fitTable wraps the cells of the widest columns, at spaces where it can,
// until the table fits width columns: a long free-text cell (an error, an
// alert line) wraps inside its cell rather than widening every row. Only
// when that is not enough does it break words, never making a column
// narrower than narrowest; with narrowest wholeWords it never breaks one.
// It reports false when even the narrowest columns cannot fit.
func fitTable(header []string, rows [][]string, width, narrowest int) ([]string, [][]string, bool) {
	n := len(header)
	widths := make([]int, n)
	for _, row := range append([][]string{header}, rows...) {
		for i, c := range row {
			if i < n {
				for _, l := range strings.Split(c, "\n") {
					widths[i] = max(widths[i], Width(l))
				}
			}
		}
	}
	// Each column takes its content plus a space either side and a rule.
	budget := width - (3*n + 1)
	natural := append([]int(nil), widths...)
	// First narrow the widest column that can still wrap between words,
	// never below its longest word; only when that is not enough, break
	// words too, never below narrowest.
	floors := longestWords(header, rows, n)
	for sum(widths) > budget {
		i := widestAbove(widths, floors)
		if i < 0 {
			break
		}
		widths[i]--
	}
	for sum(widths) > budget {
		i := argmax(widths)
		if narrowest == wholeWords || widths[i] <= narrowest {
			return nil, nil, false
		}
		widths[i]--
	}
	wrap := func(row []string) []string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = c
			if i < n && widths[i] < natural[i] {
				out[i] = wrapCell(c, widths[i])
			}
		}
		return out
	}
	fitted := make([][]string, len(rows))
	for i, r := range rows {
		fitted[i] = wrap(r)
	}
	return wrap(header), fitted, true
}

// wrapCell breaks text into lines of at most width columns, at spaces where
// it can and inside a word only when the word alone is wider.
func wrapCell(text string, width int) string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			for Width(word) > width && !glued(word) {
				if line != "" {
					lines = append(lines, line)
					line = ""
				}
				head, rest := cutWord(word, width)
				lines = append(lines, head)
				word = rest
			}
			switch {
			case line == "":
				line = word
			case Width(line)+1+Width(word) <= width:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// fill lays words out greedily on lines of at most width columns: the first
// line starts with first, the others with indent. A word wider than a line
// keeps a line of its own.
func fill(words []string, width int, first, indent string) []string {
	var lines []string
	cur, empty := first, true
	for _, w := range words {
		switch {
		case empty:
			cur += w
		case Width(cur)+1+Width(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = indent + w
		}
		empty = false
	}
	if !empty {
		lines = append(lines, cur)
	}
	return lines
}

// cutWord splits a word wider than width where it reads best within width
// columns: after its last hyphen, or before its last capital
// (Pending|Confirmation), in the second half of the line; else where the
// line ends (cutWidth).
func cutWord(word string, width int) (string, string) {
	head, rest := cutWidth(word, width)
	for i := len(head) - 1; i > 0 && Width(head[:i]) >= width/2; i-- {
		switch {
		case head[i-1] == '-':
			return word[:i], word[i:]
		case head[i] >= 'A' && head[i] <= 'Z' && head[i-1] >= 'a' && head[i-1] <= 'z':
			return word[:i], word[i:]
		}
	}
	return head, rest
}

// cutWidth splits s after as many runes as fit in width columns (at least one).
func cutWidth(s string, width int) (string, string) {
	w := 0
	for i, r := range s {
		rw := Width(string(r))
		if w+rw > width && i > 0 {
			return s[:i], s[i:]
		}
		w += rw
	}
	return s, ""
}

// longestWords is, for each of n columns, the width of its longest word.
func longestWords(header []string, rows [][]string, n int) []int {
	out := make([]int, n)
	for _, row := range append([][]string{header}, rows...) {
		for i, c := range row {
			if i >= n {
				continue
			}
			for _, w := range strings.Fields(c) {
				out[i] = max(out[i], Width(w))
			}
		}
	}
	return out
}

// widestAbove is the index of the widest column still wider than its
// floor, or -1.
func widestAbove(widths, floors []int) int {
	best := -1
	for i, w := range widths {
		if w > floors[i] && (best < 0 || w > widths[best]) {
			best = i
		}
	}
	return best
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func argmax(xs []int) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// Wrap breaks text into lines of at most width columns, at spaces where it
// can (a word wider than width is cut), for prose that must fit the terminal.
func Wrap(text string, width int) string { return Unglue(wrapCell(text, width)) }

// WrapHanging breaks a line wider than width at spaces, its continuation
// lines starting with indent, its words whole (a word wider than a line is
// cut, a command Commands glued kept whole): a terminal's screen that lays
// out its own lines (the step view) uses it.
func WrapHanging(line string, width int, indent string) string {
	return Unglue(strings.Join(breakLine(line, width, indent), "\n"))
}
