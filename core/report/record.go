package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Param is one scenario flag as a run used it: its value, its default, and
// whether the command line set it (set to the default value still counts as set).
type Param struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Default string `json:"default"`
	Set     bool   `json:"set"`
}

// Differs reports whether the run used another value than the default.
func (p Param) Differs() bool { return p.Value != p.Default }

// String is the flag as it would be typed: --name=value.
func (p Param) String() string { return "--" + p.Name + "=" + p.Value }

// NonDefault returns the params whose value is not the default, in order.
func NonDefault(params []Param) []Param {
	var out []Param
	for _, p := range params {
		if p.Differs() {
			out = append(out, p)
		}
	}
	return out
}

// Record is what a report file's header records of its run, on one JSON
// line, so that compare and the class index read a report without parsing
// its prose: the scenario, every parameter, the checks, metrics and verdict.
type Record struct {
	Scenario string         `json:"scenario"`
	Kind     Kind           `json:"kind"`
	Version  string         `json:"version"`
	Params   []Param        `json:"params"`
	Checks   []Check        `json:"checks"`
	Metrics  map[string]any `json:"metrics"`
	Verdict  string         `json:"verdict"`
	Passed   bool           `json:"passed"`
	ExitCode int            `json:"exit_code"`

	// Student is whose run this is (--student), "" when not said.
	Student string `json:"student,omitempty"`
	// Shown are the presentation flags the run was given (--schema,
	// --verbose): they change what the body shows, not what ran, so they
	// are not Params; verify reruns with them and compare names them.
	Shown []string `json:"shown,omitempty"`
}

// ChecksPassed counts the checks that passed.
func ChecksPassed(checks []Check) int {
	n := 0
	for _, c := range checks {
		if c.Passed {
			n++
		}
	}
	return n
}

// ChecksNotExercised counts the checks that were not exercised.
func ChecksNotExercised(checks []Check) int {
	n := 0
	for _, c := range checks {
		if c.Outcome == OutcomeNotExercised {
			n++
		}
	}
	return n
}

// completeChecks gives a role and an outcome to each check of a record
// written before checks carried them: it demonstrated, and it held when it
// passed. A check that says them keeps them.
func completeChecks(checks []Check) []Check {
	for i, c := range checks {
		if c.Role == "" {
			checks[i].Role = RoleDemonstrates
		}
		if c.Outcome == "" {
			checks[i].Outcome = outcomeOf(c.Passed)
		}
	}
	return checks
}

// recordLabel starts the header line that holds the Record as JSON.
const recordLabel = "record:   "

// headerLines renders the header's human lines about the run (not the
// record): the scenario, the flags that differ from the defaults, and, when
// all is set, the defaults too, the checks, exit code and verdict.
func headerLines(b *strings.Builder, r *Record) {
	fmt.Fprintf(b, "scenario: %s (%s)\n", oneLine(r.Scenario), r.Kind)
	if r.Student != "" {
		fmt.Fprintf(b, "student:  %s\n", oneLine(r.Student))
	}
	if len(r.Shown) > 0 {
		fmt.Fprintf(b, "shown:    %s (what the body shows, not what ran)\n", oneLine(strings.Join(r.Shown, " ")))
	}
	if len(NonDefault(r.Params)) == 0 {
		b.WriteString("flags:    all at their defaults\n")
	}
	flagLines(b, r)
	var defaults []string
	for _, p := range r.Params {
		if !p.Differs() {
			defaults = append(defaults, oneLine(p.String()))
		}
	}
	for i, line := range wrapWords(defaults, 100-10) {
		label := "defaults: "
		if i > 0 {
			label = "          "
		}
		b.WriteString(label + line + "\n")
	}
	fmt.Fprintf(b, "checks:   %d/%d passed\n", ChecksPassed(r.Checks), len(r.Checks))
	fmt.Fprintf(b, "exit:     %d\n", r.ExitCode)
	fmt.Fprintf(b, "verdict:  %s\n", oneLine(r.Verdict))
}

// flagIndent continues a flag's line too long for MaxWidth.
const flagIndent = "            "

// flagLines writes the flags that differ from the defaults, one a line.
func flagLines(b *strings.Builder, r *Record) {
	for i, p := range NonDefault(r.Params) {
		label := "flags:    "
		if i > 0 {
			label = "          "
		}
		line := fmt.Sprintf("%s%s (default %s)", label, oneLine(p.String()), oneLine(Dash(p.Default)))
		if Width(line) > MaxWidth {
			// A long value (a --reason at its maximum): wrapped, cut where it has no space.
			words := breakLongWords(strings.Fields(line[len(label):]), MaxWidth-len(flagIndent))
			line = strings.Join(fill(words, MaxWidth, label, flagIndent), "\n")
		}
		b.WriteString(line + "\n")
	}
}

// wrapWords joins words with spaces into lines of at most width columns (a
// single longer word gets a line of its own).
func wrapWords(words []string, width int) []string { return fill(words, width, "", "") }

// encodeRecord is the record's JSON on one line: encoding/json escapes every
// control character, so the line can never end the header early.
func encodeRecord(r *Record) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		// Metrics are plain numbers, strings, lists and maps; anything else is a bug.
		panic(fmt.Sprintf("encode report record: %v", err))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Info is what a report's run-metadata header says. Record is nil for a
// header written before reports carried one (or a body with no header).
type Info struct {
	Started time.Time
	Command string
	Version string
	Record  *Record

	// The header's human lines about the outcome, as written ("" when
	// absent): Consistency holds them against the record and the body.
	Checks, Exit, Verdict string
}

// ParseHeader reads a run-metadata header as Header writes it. Unknown lines
// are ignored, so an older header gives what it has.
func ParseHeader(header string) Info {
	var info Info
	for _, line := range strings.Split(header, "\n") {
		label, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch label {
		case "started":
			info.Started, _ = time.Parse(time.RFC3339, value)
		case "command":
			info.Command = value
		case "version":
			info.Version = strings.TrimPrefix(value, "outboxlab ")
		case "checks":
			info.Checks = value
		case "exit":
			info.Exit = value
		case "verdict":
			info.Verdict = value
		case "record":
			var r Record
			if json.Unmarshal([]byte(value), &r) == nil && r.Scenario != "" {
				r.Checks = completeChecks(r.Checks)
				info.Record = &r
			}
		}
	}
	return info
}

// GradeReport reports whether a report was written by `outboxlab grade`:
// its header's command names grade. Its body depends on a student's worker.
func GradeReport(info Info) bool {
	words := strings.Fields(info.Command)
	return len(words) > 1 && words[1] == "grade"
}
