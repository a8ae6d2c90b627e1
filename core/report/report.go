// Package report builds what a scenario prints: sections, tables, checks and a
// verdict, and writes it as a run report with a run-metadata header.
package report

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"outboxlab/core/plot"
)

// Kind says what a scenario is for.
type Kind string

// The scenario kinds. A BEFORE scenario's checks assert that the failure mode
// was reproduced; an AFTER scenario's that the fix held; an EXPERIMENT's that
// the properties its source states hold.
const (
	Before     Kind = "BEFORE"
	After      Kind = "AFTER"
	Experiment Kind = "EXPERIMENT"
)

// Report accumulates the deterministic body of a run report.
type Report struct {
	Scenario string
	Kind     Kind

	buf     bytes.Buffer
	checks  []Check
	leads   map[string]string // a demonstrating check's own headline when it alone fails (CheckLead)
	metrics map[string]any
	verdict string
	figures []plot.Figure
}

// New starts a report for scenario.
func New(scenario string, kind Kind) *Report {
	return &Report{Scenario: scenario, Kind: kind, metrics: map[string]any{}}
}

// Title writes the report's first line, underlined.
func (r *Report) Title(title string) {
	fmt.Fprintf(&r.buf, "%s\n%s\n", title, strings.Repeat("=", Width(title)))
}

// Section starts a titled section.
func (r *Report) Section(title string) {
	fmt.Fprintf(&r.buf, "\n## %s\n\n", title)
}

// Line writes one line. A line wider than MaxWidth (an extreme but legal
// flag value: a 24h backoff, day +102) is wrapped (fitLine), so that no
// accepted value widens a report; a line that fits is written as it is.
func (r *Report) Line(s string) {
	r.buf.WriteString(fitLine(s))
	r.buf.WriteByte('\n')
}

// fitLine wraps each line of s wider than MaxWidth at spaces, its
// continuation lines indented under its text (hangingIndent). A line that
// ends with a compare marker ([measured], [database]) has it on every piece,
// so compare still skips all of it.
func fitLine(s string) string {
	if Width(s) <= MaxWidth {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if Width(l) <= MaxWidth {
			continue
		}
		marker := ""
		for _, m := range []string{MeasuredMarker, DatabaseMarker} {
			if strings.HasSuffix(l, " "+m) {
				marker = " " + m
			}
		}
		text := strings.TrimSuffix(l, marker)
		out := breakLine(text, MaxWidth-Width(marker), hangingIndent(text))
		for k := range out {
			out[k] += marker
		}
		lines[i] = strings.Join(out, "\n")
	}
	return strings.Join(lines, "\n")
}

// breakLongWords cuts each word wider than width (a long value typed
// without a space) into pieces that fit, so a wrapped line never overflows.
func breakLongWords(words []string, width int) []string {
	var out []string
	for _, w := range words {
		for Width(w) > width && width > 0 && !glued(w) {
			var head string
			head, w = cutWidth(w, width)
			out = append(out, head)
		}
		out = append(out, w)
	}
	return out
}

// twoWordLabel is a setup line's label of two words and the spaces after it.
var twoWordLabel = regexp.MustCompile(`^[A-Z][a-z]+ [a-z]+  +`)

// hangingIndent is where a wrapped line's continuation starts: under the
// text after a label set off by two spaces ("Retries   failed…", "Demo cap
// none…"), under a timeline event's text ("09:00:00.000Z+1d  GOV-001
// failed…": EventIndent), else four past its own indent.
func hangingIndent(line string) string {
	if isEvent(line) {
		return EventIndent(line)
	}
	if m := twoWordLabel.FindString(line); m != "" && Width(m) <= 16 {
		return strings.Repeat(" ", Width(m)) // a setup label of two words ("Demo cap  …")
	}
	lead := len(line) - len(strings.TrimLeft(line, " "))
	if i := strings.Index(line[lead:], "  "); i > 0 && !strings.Contains(line[lead:lead+i], " ") {
		j := lead + i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if Width(line[:j]) <= 40 {
			return strings.Repeat(" ", Width(line[:j]))
		}
	}
	return strings.Repeat(" ", lead+4)
}

// Linef writes one formatted line.
func (r *Report) Linef(format string, args ...any) {
	r.Line(fmt.Sprintf(format, args...))
}

// Table writes a table with a header row. Cells are never wrapped.
func (r *Report) Table(header []string, rows [][]string) {
	r.buf.WriteString(RenderTable(header, rows))
}

// RenderTable renders a table the way every report does, fitted to
// MaxWidth columns (see fitTable).
func RenderTable(header []string, rows [][]string) string {
	out := renderTable(header, rows)
	if widest(out) <= MaxWidth {
		return out
	}
	if h, r, ok := fitTable(header, rows, MaxWidth, minColumn); ok {
		return renderTable(h, r)
	}
	return out
}

func renderTable(header []string, rows [][]string, more ...tablewriter.Option) string {
	var b bytes.Buffer
	t := tablewriter.NewTable(&b, append([]tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		// Widths must not depend on the reader's locale: reports are compared byte for byte.
		tablewriter.WithEastAsian(tw.Off),
	}, more...)...)
	t.Header(header)
	for _, row := range rows {
		t.Append(row)
	}
	if err := t.Render(); err != nil {
		// Rendering into memory fails only on a programming error (a row of the wrong width).
		panic(fmt.Sprintf("render table %v: %v", header, err))
	}
	return b.String()
}

// Figure draws a picture into the body and keeps its SVG, which the harness
// writes beside the report file.
func (r *Report) Figure(f plot.Figure) {
	r.buf.WriteString(f.Text)
	r.figures = append(r.figures, f)
}

// Figures returns the pictures drawn so far.
func (r *Report) Figures() []plot.Figure { return r.figures }

// WrapLine breaks a line wider than MaxWidth at spaces into continuation
// lines that start with indent (see wrapLine), never inside a command that
// Commands glued, and unglues it.
func WrapLine(line, indent string) string { return Unglue(wrapLine(line, indent)) }

// wrapLine breaks a line wider than MaxWidth at spaces into continuation
// lines that start with indent.
func wrapLine(line, indent string) string {
	if Width(line) <= MaxWidth {
		return line
	}
	return strings.Join(breakLine(line, MaxWidth, indent), "\n")
}

// breakLine breaks line into lines of at most width columns at spaces. The
// first keeps its own spacing (a label's, a check mark's two spaces) and
// breaks at the last space that fits; the rest are filled after indent. A
// word wider than a line is cut, but for a command (glued): one too wide for
// a line of its own stays after its label ("Try:    outboxlab …"), or else
// stands on a line of its own. It is the lab's one line breaker: report
// lines (fitLine, wrapLine) and their terminal view (View) use it.
func breakLine(line string, width int, indent string) []string {
	if Width(line) <= width {
		return []string{line}
	}
	head := line[:len(line)-len(strings.TrimLeft(line, " "))]
	first, rest := line, ""
	for j, c := range line {
		if c == ' ' && j > len(head) && line[j-1] != ' ' && Width(line[:j]) <= width {
			first, rest = line[:j], line[j:]
		}
	}
	switch next := firstWord(rest); {
	case rest == "" && glued(firstWord(line[len(head):])):
		// A command wider than the line starts it: whole, then the rest.
		end := len(head) + len(firstWord(line[len(head):]))
		first, rest = line[:end], line[end:]
	case rest == "":
		// The first word is wider than the line (a long value typed
		// without a space): cut it where the line ends.
		first, rest = cutWidth(line, width)
	case glued(next) && Width(indent+next) > width && !strings.Contains(strings.TrimSpace(first), " "):
		// Below its label the command would be as wide: it stays after it.
		end := len(first) + strings.Index(rest, next) + len(next)
		first, rest = line[:end], line[end:]
	}
	return append([]string{first}, fill(breakLongWords(strings.Fields(rest), width-len(indent)), width, indent, indent)...)
}

// firstWord is the first word of s, after any spaces.
func firstWord(s string) string {
	word, _, _ := strings.Cut(strings.TrimLeft(s, " "), " ")
	return word
}

// Metric records a figure for --json output.
func (r *Report) Metric(name string, value any) { r.metrics[name] = value }

// Body returns the text written so far.
func (r *Report) Body() string { return r.buf.String() }

// Result is the machine-readable form of a run, printed by --json.
type Result struct {
	Scenario   string         `json:"scenario"`
	Kind       Kind           `json:"kind"`
	Version    string         `json:"version"`
	Params     []Param        `json:"params"` // every scenario flag, defaults included
	Verdict    string         `json:"verdict"`
	Passed     bool           `json:"passed"`
	Checks     []Check        `json:"checks"`
	Metrics    map[string]any `json:"metrics"`
	ReportPath string         `json:"report_path,omitempty"`
	Plots      []string       `json:"plots,omitempty"`
}

// Result returns the run's result, its checks in the order the body
// prints them (a BEFORE's invariants after its failures), so that a
// report's record and its body list them alike.
func (r *Report) Result() Result {
	checks := append([]Check{}, r.checks...)
	if r.Kind == Before {
		slices.SortStableFunc(checks, func(a, b Check) int {
			return cmp.Compare(invariantRank(a), invariantRank(b))
		})
	}
	return Result{Scenario: r.Scenario, Kind: r.Kind, Verdict: r.verdict, Passed: r.Passed(),
		Checks: checks, Metrics: r.metrics}
}

// DropSection removes the section titled title (up to the next section)
// from the body written so far: the harness drops the schema section unless
// the user asked for it.
func (r *Report) DropSection(title string) {
	head := "\n## " + title + "\n"
	body := r.buf.String()
	start := strings.Index(body, head)
	if start < 0 {
		return
	}
	end := len(body)
	if next := strings.Index(body[start+len(head):], "\n## "); next >= 0 {
		end = start + len(head) + next
	}
	r.buf.Reset()
	r.buf.WriteString(body[:start] + body[end:])
}

// SchemaTitle is the title of the section that shows a run's schema (see
// scenarios.SchemaSection).
const SchemaTitle = "Schema " + DatabaseMarker
