package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"outboxlab/core/report"
)

// Next is where a run points its reader when it is over, the last section of
// every report: the scenario's pair, one flag worth trying with what it will
// show, and the course section the scenario follows. A family declares its
// scenarios' Next in one table (DeclareNext); a test runs every scenario with
// its Try flags and requires the verdict the line announces.
type Next struct {
	Try     []string // flags to add to this scenario's own command
	Shows   string   // what the run with them shows, in one sentence
	Verdict string   // the outcome that run gets: report.VerdictPass, report.VerdictFail …
	Course  string   // the course section the scenario follows
}

// nexts holds the declared Next of each scenario, by name.
var nexts = map[string]Next{}

// DeclareNext records the Next of the scenarios named in table. It panics on
// a name declared twice: a programming error, found by any test.
func DeclareNext(table map[string]Next) {
	for name, n := range table {
		if _, ok := nexts[name]; ok {
			panic(fmt.Sprintf("Next of %q declared twice", name))
		}
		nexts[name] = n
	}
}

// Next returns the scenario's declared Next, if it has one.
func (s *Scenario) Next() (Next, bool) {
	n, ok := nexts[s.Name]
	return n, ok
}

// NextDeclaredFor lists the names a Next was declared for, sorted: a test
// requires each to be a registered scenario.
func NextDeclaredFor() []string {
	var names []string
	for name := range nexts {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// NextTitle is the title of a report's last section.
const NextTitle = "Next"

// WriteNext ends r with the scenario's Next section: its pair (or the BEFORE
// an unpaired AFTER answers), the flag to try with what it will show, and the
// course section. A scenario without a declared Next gets none.
func (s *Scenario) WriteNext(r *report.Report) {
	n, ok := s.Next()
	if !ok {
		return
	}
	r.Section(NextTitle)
	switch {
	case s.Pair != "":
		other := Lookup(s.Pair)
		role := "the AFTER that fixes it"
		if s.Kind == report.After {
			role = "the BEFORE it fixes"
		}
		if other != nil && other.Kind == s.Kind {
			role = "its pair"
		}
		r.Line(nextLine("  Pair:   " + report.LabName + " " + s.Pair + ", " + role))
	case s.Answers != "":
		r.Line(nextLine("  Answers: " + report.LabName + " " + s.Answers + " (the BEFORE whose failure this contains)"))
	}
	r.Line(nextLine("  Try:    " + report.LabName + " " + s.Name + " " + strings.Join(n.Try, " ")))
	r.Line(report.WrapLine(nextIndent+"→ "+n.Verdict+" "+n.Shows, nextIndent))
	r.Line(report.WrapLine("  Course: "+n.Course, nextIndent))
}

// nextIndent begins the continuation lines of a Next line.
const nextIndent = "          "

// nextLine is a Next line that names a command, wrapped under nextIndent
// but never inside the command: one too wide stays whole after its label
// (report.Commands). The terminal starts it as the user started the lab.
func nextLine(line string) string {
	return report.WrapLine(report.Commands(line, report.LabName, isScenario), nextIndent)
}

// isScenario reports whether word names a scenario (or an alias).
func isScenario(word string) bool { return Lookup(word) != nil }
