package grade

import (
	"fmt"
	"strings"

	"outboxlab/core/report"
)

// The verdict across the runs (docs/grade-protocol.md section 8): a check
// is held wherever a run exercised it, and exercised in at least one run. A
// run that did not exercise a check (the course's run has no transient key,
// say) notes it apart from its checks; a check that no run exercised fails.

// acrossRuns collects, check by check, the runs that exercised it.
type acrossRuns struct {
	order     []string            // check names, as first met
	exercised map[string]bool     // exercised in some run
	idle      map[string][]string // the runs that did not exercise it: "v1: why"
}

// add notes c, a check of the run tagged tag (v1, v2, …), and reports
// whether that run exercised it.
func (a *acrossRuns) add(tag string, c report.Check) bool {
	if a.exercised == nil {
		a.exercised, a.idle = map[string]bool{}, map[string][]string{}
	}
	if _, seen := a.exercised[c.Name]; !seen {
		a.order = append(a.order, c.Name)
		a.exercised[c.Name] = false
	}
	if c.Outcome == report.OutcomeNotExercised {
		a.idle[c.Name] = append(a.idle[c.Name], tag+": "+strings.TrimPrefix(c.Detail, "not exercised: "))
		return false
	}
	a.exercised[c.Name] = true
	return true
}

// never are the checks no run exercised, each failing with what did not
// happen in each run.
func (a *acrossRuns) never() []report.Check {
	var out []report.Check
	for _, name := range a.order {
		if !a.exercised[name] {
			out = append(out, report.Check{Name: "every run: " + name, Role: report.RoleDemonstrates,
				Outcome: report.OutcomeBroken, Detail: "exercised in no run (" + strings.Join(a.idle[name], "; ") + ")"})
		}
	}
	return out
}

// noteIdle writes the checks a run did not exercise, apart from its checks.
func noteIdle(sub *report.Report, tag string, idle []report.Check) {
	if len(idle) == 0 {
		return
	}
	sub.Section(fmt.Sprintf("Not exercised in %s (judged in the runs that exercise them)", tag))
	for _, c := range idle {
		sub.Line(report.WrapLine(fmt.Sprintf("  -     %s → %s", c.Name, c.Detail), "        "))
	}
}

// recordNever writes the checks no run exercised into rep, failing each,
// or says that every check was exercised; it returns how many failed.
func (a *acrossRuns) recordNever(rep *report.Report) int {
	never := a.never()
	if len(never) == 0 {
		rep.Line("  every check was exercised in at least one run")
		return 0
	}
	sub := report.New(rep.Scenario, report.After)
	for _, c := range never {
		sub.Record(c)
		rep.Record(c)
	}
	sub.Checks("Checks — across the runs (each must be exercised in at least one)")
	rep.Line(strings.TrimSuffix(sub.Body(), "\n"))
	return len(never)
}
