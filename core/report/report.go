// Package report builds what a scenario prints: sections, tables, checks and a
// verdict, and writes it as a run report with a run-metadata header.
package report

import (
	"bytes"
	"cmp"
	"fmt"
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

// Role says what a check is for.
type Role string

// The roles of a check. A demonstrating check is the scenario's point: a
// BEFORE's failure, an AFTER's property, an EXPERIMENT's claim. An invariant
// must hold in both designs (a BEFORE that double-charges has broken one,
// whatever its failure).
const (
	RoleDemonstrates Role = "demonstrates"
	RoleInvariant    Role = "invariant"
)

// Outcome says what became of a check in one run.
type Outcome string

// The outcomes of a check: what it states held (for a BEFORE's
// demonstrating check, the failure was reproduced), it broke, or its
// precondition did not occur in this run, so it judged nothing.
const (
	OutcomeHeld         Outcome = "held"
	OutcomeBroken       Outcome = "broken"
	OutcomeNotExercised Outcome = "not_exercised"
)

// Check is one named safety check and the figure behind it. Passed is true
// only when the check held: a check that was not exercised has not passed.
type Check struct {
	Name    string  `json:"name"`
	Passed  bool    `json:"passed"`
	Detail  string  `json:"detail"`
	Role    Role    `json:"role"`
	Outcome Outcome `json:"outcome"`
}

// outcomeOf is the outcome of a check that was exercised.
func outcomeOf(held bool) Outcome {
	if held {
		return OutcomeHeld
	}
	return OutcomeBroken
}

// Report accumulates the deterministic body of a run report.
type Report struct {
	Scenario string
	Kind     Kind

	buf     bytes.Buffer
	checks  []Check
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
		for Width(w) > width && width > 0 {
			var head string
			head, w = cutWidth(w, width)
			out = append(out, head)
		}
		out = append(out, w)
	}
	return out
}

// hangingIndent is where a wrapped line's continuation starts: under the
// text after a label or stamp set off by two spaces ("Retries   failed…",
// "09:00:00.000Z+1d  GOV-001  failed…"), else four past its own indent.
func hangingIndent(line string) string {
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

// Check records a demonstrating check that was exercised; Checks prints
// them all.
func (r *Report) Check(name string, passed bool, detail string) {
	r.Record(Check{Name: name, Detail: detail, Role: RoleDemonstrates, Outcome: outcomeOf(passed)})
}

// Invariant records an invariant that was exercised: held says whether it
// held.
func (r *Report) Invariant(name string, held bool, detail string) {
	r.Record(Check{Name: name, Detail: detail, Role: RoleInvariant, Outcome: outcomeOf(held)})
}

// NotExercised records a demonstrating check whose precondition did not
// occur in this run; why says what did not happen and what to change so
// that it does (the verdict repeats it).
func (r *Report) NotExercised(name, why string) {
	r.Record(Check{Name: name, Detail: why, Role: RoleDemonstrates, Outcome: OutcomeNotExercised})
}

// Record records c as it is, with Passed set from its outcome; a check
// without a role demonstrates.
func (r *Report) Record(c Check) {
	if c.Role == "" {
		c.Role = RoleDemonstrates
	}
	c.Passed = c.Outcome == OutcomeHeld
	r.checks = append(r.checks, c)
}

// NoChecks is the line Checks writes for a report that recorded none: a run
// that judged nothing has not passed.
const NoChecks = "FAIL  no checks recorded: this run judged nothing, so it has not passed"

// BeforeChecks is the heading of every BEFORE's checks: they ask whether the
// naive design failed the way the course says it does.
const BeforeChecks = "Checks — is the failure reproduced?"

// BeforeInvariants is the heading of a BEFORE's invariants, printed apart
// from its failures: they must hold even in the naive design, so that a
// property that held never reads like the failure.
const BeforeInvariants = "Invariants — do they hold even here?"

// The marks of a check line. A BEFORE's checks pass when the failure was
// reproduced, so they say that rather than PASS, which would read as a
// design that held.
const (
	MarkPass          = "PASS"
	MarkFail          = "FAIL"
	MarkReproduced    = "REPRODUCED"
	MarkNotReproduced = "NOT REPRODUCED"
	MarkHolds         = "HOLDS"
	MarkBroken        = "BROKEN"
	MarkNotExercised  = "N/A"
)

// Mark is the word a check line of a kind's report starts with.
func Mark(kind Kind, c Check) string {
	switch {
	case c.Outcome == OutcomeNotExercised:
		return MarkNotExercised
	case kind == Before && c.Role == RoleInvariant && c.Passed:
		return MarkHolds
	case kind == Before && c.Role == RoleInvariant:
		return MarkBroken
	case kind == Before && c.Passed:
		return MarkReproduced
	case kind == Before:
		return MarkNotReproduced
	case c.Passed:
		return MarkPass
	}
	return MarkFail
}

// MarkPassed reports whether a check line's mark says the check held.
func MarkPassed(mark string) bool {
	return mark == MarkPass || mark == MarkReproduced || mark == MarkHolds
}

// Checks writes the recorded checks as a section, one line each marked PASS,
// FAIL or N/A. A BEFORE's demonstrating checks are marked REPRODUCED or NOT
// REPRODUCED under the one heading every BEFORE uses (BeforeChecks),
// whatever title it asks for, and its invariants HOLDS or BROKEN in a
// section of their own (BeforeInvariants).
func (r *Report) Checks(title string) {
	if r.Kind != Before {
		r.checkSection(title, r.checks)
		return
	}
	var failures, invariants []Check
	for _, c := range r.checks {
		if c.Role == RoleInvariant {
			invariants = append(invariants, c)
		} else {
			failures = append(failures, c)
		}
	}
	r.checkSection(BeforeChecks, failures)
	if len(invariants) > 0 {
		r.checkSection(BeforeInvariants, invariants)
	}
}

// checkSection writes one section of check lines.
func (r *Report) checkSection(title string, checks []Check) {
	r.Section(title)
	if len(checks) == 0 {
		r.Line("  " + NoChecks)
	}
	for _, c := range checks {
		r.Line(wrapLine(fmt.Sprintf("  %s  %s → %s", Mark(r.Kind, c), c.Name, c.Detail), checkIndent))
	}
}

// checkIndent and verdictIndent begin the continuation lines of a check or
// verdict line too wide for MaxWidth; BodyChecks and BodyVerdict join them
// back.
const (
	checkIndent   = "        "
	verdictIndent = "         "
)

// WrapLine breaks a line wider than MaxWidth at spaces into continuation
// lines that start with indent (see wrapLine).
func WrapLine(line, indent string) string { return wrapLine(line, indent) }

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
// word wider than a line is cut. It is the lab's one line breaker: report
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
	if rest == "" && Width(line) > width {
		// The first word is wider than the line (a long value typed
		// without a space): cut it where the line ends.
		first, rest = cutWidth(line, width)
	}
	return append([]string{first}, fill(breakLongWords(strings.Fields(rest), width-len(indent)), width, indent, indent)...)
}

// Passed reports whether at least one check was recorded and every recorded
// check held. A report with no checks has not passed: it judged nothing; nor
// has one with a check that was not exercised.
func (r *Report) Passed() bool {
	if len(r.checks) == 0 {
		return false
	}
	for _, c := range r.checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// The verdict's outcomes, each with its own symbol so that they differ
// without colour: an AFTER or EXPERIMENT that held or failed, a BEFORE whose
// failure was reproduced or was not.
const (
	VerdictPass          = "[PASS ✅]"
	VerdictFail          = "[FAIL ❌]"
	VerdictReproduced    = "[REPRODUCED 🧪]"
	VerdictNotReproduced = "[NOT REPRODUCED ❓]"
	VerdictNotExercised  = "[NOT EXERCISED 💤]"
)

// Verdict writes the verdict line: the outcome (see VerdictPass and its
// siblings), then a text. It follows from the checks, in this order:
//   - an invariant broke: FAIL, naming it (a BEFORE too: its failure is not
//     the one the course shows if it also breaks what must hold);
//   - a demonstrating check broke: fail, with the checks that broke (a
//     BEFORE's NOT REPRODUCED also names what it did reproduce);
//   - a demonstrating check was not exercised: NOT EXERCISED, with what did
//     not happen and what to change (the check's detail);
//   - otherwise pass (REPRODUCED for a BEFORE).
//
// A symbol at the end of either text is dropped: the outcome carries it.
func (r *Report) Verdict(pass, fail string) {
	outcome, text := r.judge(trimSymbol(pass), trimSymbol(fail))
	r.verdict = outcome + " " + text
	r.Section("Verdict")
	r.Line(wrapLine("VERDICT: "+r.verdict, verdictIndent))
}

// judge is the verdict's outcome and text (see Verdict).
func (r *Report) judge(pass, fail string) (outcome, text string) {
	var held, broken, brokenInvariants, idle []string
	var why string
	for _, c := range r.checks {
		switch {
		case c.Outcome == OutcomeNotExercised:
			if c.Role == RoleDemonstrates {
				idle = append(idle, c.Name)
				if why == "" {
					why = c.Detail
				}
			}
		case c.Role == RoleInvariant && !c.Passed:
			brokenInvariants = append(brokenInvariants, c.Name)
		case c.Role == RoleInvariant:
		case c.Passed:
			held = append(held, c.Name)
		default:
			broken = append(broken, c.Name)
		}
	}
	failed := VerdictFail
	if r.Kind == Before {
		failed = VerdictNotReproduced
	}
	switch {
	case len(r.checks) == 0:
		return failed, fail
	case len(brokenInvariants) > 0:
		return VerdictFail, fail + " — broken: " + strings.Join(brokenInvariants, "; ")
	case len(broken) > 0 && r.Kind == Before && len(held) > 0:
		return failed, fail + " — reproduced: " + strings.Join(held, "; ") +
			"; not reproduced: " + strings.Join(broken, "; ")
	case len(broken) > 0 && r.Kind == Before:
		return failed, fail + " — not reproduced: " + strings.Join(broken, "; ")
	case len(broken) > 0:
		return failed, fail + " — failed: " + strings.Join(broken, "; ")
	case len(idle) > 0:
		text = "NOTHING HERE EXERCISED " + strings.Join(idle, "; ") + ": " + why
		if len(idle) > 1 {
			text = "NOTHING HERE EXERCISED " + strings.Join(idle, "; ") + " (see its N/A checks): " + why
		}
		return VerdictNotExercised, text
	case r.Kind == Before:
		return VerdictReproduced, pass
	}
	return VerdictPass, pass
}

// invariantRank orders a BEFORE's checks as Checks prints them.
func invariantRank(c Check) int {
	if c.Role == RoleInvariant {
		return 1
	}
	return 0
}

// trimSymbol drops a verdict symbol a scenario put at the end of its text.
func trimSymbol(text string) string {
	text = strings.TrimSpace(text)
	for _, sym := range []string{"✅", "❌", "⚠️", "⚠"} {
		text = strings.TrimSpace(strings.TrimSuffix(text, sym))
	}
	return text
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
