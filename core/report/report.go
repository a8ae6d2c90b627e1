// Package report builds what a scenario prints: sections, tables, checks and a
// verdict, and writes it as a run report with a run-metadata header.
package report

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

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

// Check is one named safety check and the figure behind it.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
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
	fmt.Fprintf(&r.buf, "%s\n%s\n", title, strings.Repeat("=", displayWidth(title)))
}

// Section starts a titled section.
func (r *Report) Section(title string) {
	fmt.Fprintf(&r.buf, "\n## %s\n\n", title)
}

// Line writes one line.
func (r *Report) Line(s string) {
	r.buf.WriteString(s)
	r.buf.WriteByte('\n')
}

// Linef writes one formatted line.
func (r *Report) Linef(format string, args ...any) {
	r.Line(fmt.Sprintf(format, args...))
}

// Table writes a table with a header row. Cells are never wrapped.
func (r *Report) Table(header []string, rows [][]string) {
	r.buf.WriteString(RenderTable(header, rows))
}

// RenderTable renders a table the way every report does.
func RenderTable(header []string, rows [][]string) string {
	var b bytes.Buffer
	t := tablewriter.NewTable(&b,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		// Widths must not depend on the reader's locale: reports are compared byte for byte.
		tablewriter.WithEastAsian(tw.Off),
	)
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

// Check records a check; Checks prints them all.
func (r *Report) Check(name string, passed bool, detail string) {
	r.checks = append(r.checks, Check{Name: name, Passed: passed, Detail: detail})
}

// NoChecks is the line Checks writes for a report that recorded none: a run
// that judged nothing has not passed.
const NoChecks = "FAIL  no checks recorded: this run judged nothing, so it has not passed"

// Checks writes the recorded checks as a section, one PASS/FAIL line each.
func (r *Report) Checks(title string) {
	r.Section(title)
	if len(r.checks) == 0 {
		r.Line("  " + NoChecks)
	}
	for _, c := range r.checks {
		mark := "PASS"
		if !c.Passed {
			mark = "FAIL"
		}
		r.Linef("  %s  %s → %s", mark, c.Name, c.Detail)
	}
}

// Passed reports whether at least one check was recorded and every recorded
// check passed. A report with no checks has not passed: it judged nothing.
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

// Verdict writes the verdict line: pass when every check passed, fail otherwise.
func (r *Report) Verdict(pass, fail string) {
	r.verdict = fail
	if r.Passed() {
		r.verdict = pass
	}
	r.Section("Verdict")
	r.Linef("VERDICT: %s", r.verdict)
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

// Result returns the run's result.
func (r *Report) Result() Result {
	checks := append([]Check{}, r.checks...)
	return Result{Scenario: r.Scenario, Kind: r.Kind, Verdict: r.verdict, Passed: r.Passed(),
		Checks: checks, Metrics: r.metrics}
}

func displayWidth(s string) int {
	return utf8.RuneCountInString(s)
}
