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

// NextRun is what a Next section reads of the run it ends: the run's flags
// (its parameters, defaults included) and the Day exercise writes a
// starting worker for and grade judges ("" when the scenario has none).
type NextRun struct {
	Params []report.Param
	Worker string
}

// WriteNext ends r with the scenario's Next section, computed from the run:
// its pair (or the BEFORE an unpaired AFTER answers), the flag to try with
// what it will show (the defaults instead when the run already has those
// flags), the course section, the next Day after a Day's AFTER, and the
// Day's starting worker and its grade. A scenario without a declared Next
// gets none.
func (s *Scenario) WriteNext(r *report.Report, run NextRun) {
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
	try, verdict, shows := n.Try, n.Verdict, n.Shows
	if InEffect(n.Try, run.Params) {
		// The run already is the one Try suggests: its defaults lead on.
		try, verdict, shows = nil, defaultVerdict(s.Kind), "its defaults: the course's run, which this run's flags changed"
	}
	r.Line(nextLine(strings.TrimRight("  Try:    "+report.LabName+" "+s.Name+" "+strings.Join(try, " "), " ")))
	r.Line(report.WrapLine(nextIndent+"→ "+verdict+" "+shows, nextIndent))
	r.Line(report.WrapLine("  Course: "+n.Course, nextIndent))
	s.writeLeadOn(r, run.Worker)
}

// writeLeadOn writes where the lesson goes after this scenario: a Day's
// AFTER to the next Day's BEFORE, and a Day with a starting worker to
// exercise and grade (the last Day's AFTER leads there alone).
func (s *Scenario) writeLeadOn(r *report.Report, worker string) {
	if s.Kind == report.After && s.Day > 0 {
		for _, next := range All() {
			if next.Day == s.Day+1 && next.Kind == report.Before {
				r.Line(nextLine(fmt.Sprintf("  Then:   %s %s, Day %d", report.LabName, next.Name, next.Day)))
				break
			}
		}
	}
	if worker == "" {
		return
	}
	dir := "./" + strings.Replace(worker, "session-", "day", 1)
	r.Line(nextLine("  Build:  " + report.LabName + " exercise " + worker + " " + dir + ", a starting worker to finish"))
	r.Line(nextLine("  Grade:  " + report.LabName + " grade " + worker + " -- go -C " + dir + " run ."))
}

// defaultVerdict is the verdict a scenario's defaults get: the course's
// run reproduces a BEFORE's failure and holds an AFTER's fix.
func defaultVerdict(kind report.Kind) string {
	if kind == report.Before {
		return report.VerdictReproduced
	}
	return report.VerdictPass
}

// InEffect reports whether every flag of try (--name=value, --name value,
// or a true/false --name alone) already has that value in params: a run
// that already has them would be suggested itself.
func InEffect(try []string, params []report.Param) bool {
	if len(params) == 0 {
		return false
	}
	value := map[string]report.Param{}
	for _, p := range params {
		value[p.Name] = p
	}
	for i := 0; i < len(try); i++ {
		name, v, hasValue := strings.Cut(strings.TrimPrefix(try[i], "--"), "=")
		p, ok := value[name]
		if !ok {
			return false
		}
		if !hasValue {
			switch {
			case isBool(p):
				v = "true"
			case i+1 < len(try):
				i++
				v = try[i]
			}
		}
		if v != p.Value {
			return false
		}
	}
	return true
}

// isBool reports whether p is a true/false flag.
func isBool(p report.Param) bool {
	return (p.Default == "true" || p.Default == "false") && (p.Value == "true" || p.Value == "false")
}

// nextIndent begins the continuation lines of a Next line.
const nextIndent = "          "

// nextLine is a Next line that names a command, wrapped under nextIndent
// but never inside the command: one too wide stays whole after its label
// (report.Commands). The terminal starts it as the user started the lab.
func nextLine(line string) string {
	return report.WrapLine(report.Commands(line, report.LabName, isLabWord), nextIndent)
}

// isLabWord reports whether word, after the lab's name, makes one of its
// commands: a scenario (or an alias), exercise or grade.
func isLabWord(word string) bool { return Lookup(word) != nil || word == "exercise" || word == "grade" }
