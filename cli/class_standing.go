package cli

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/report"
	"outboxlab/workers"
)

// A standing is what class makes of one row: the one word every output
// (the table, CSV, JUnit, the gradebook, the exit code) counts by.
type standing string

const (
	standPassed      standing = "passed"         // its checks held, and the lab reproduced it (a rerun, or a regrade)
	standFailed      standing = "failed"         // a check failed or was not exercised
	standDiffers     standing = "differs"        // a regrade disagrees with the grade report handed in
	standNotRegraded standing = "not regraded"   // a grade report with no worker given: its claims are unchecked
	standCopied      standing = "copied"         // the worker matches a shipped reference or another student's
	standUnverified  standing = "did not verify" // the header disagrees with its body, or a rerun differs
)

// standingOf is s's standing and why, in one line. A grade report that was
// not regraded never stands passed: its body is what the student says.
func standingOf(s submission) (standing, string) {
	if w := s.Worker; w != nil {
		switch rg := w.Regrade; {
		case w.Copied != "":
			return standCopied, w.Copied
		case rg == nil && !s.Doc.HasHeader:
			return standNotRegraded, "a worker with no grade report: class --regrade grades it (runs the student's code)"
		case rg == nil:
			// Judged below as a report alone.
		case rg.Err != "":
			return standFailed, rg.Err
		case s.Differs != "":
			return standDiffers, s.Differs
		case !rg.Passed:
			return standFailed, "the regrade: " + failedChecks(rg.Checks)
		default:
			return standPassed, ""
		}
	}
	if d := report.Disagreements(s.Doc); len(d) > 0 {
		return standUnverified, s.Verify.Reason
	}
	if isGradeReport(s.Doc) {
		// A failing grade is failing whoever made it: nobody forges a fail.
		if !s.Passed {
			return standFailed, failedChecks(s.Checks)
		}
		if s.Worker != nil {
			return standNotRegraded, "its worker " + s.Worker.Folder + "/ was handed in but not regraded: class --regrade grades it"
		}
		return standNotRegraded, "no worker given: its checks are the student's word (hand in the worker's folder with " +
			workers.ManifestFile + "; class --regrade grades it)"
	}
	switch {
	case !s.Verify.Verified:
		return standUnverified, s.Verify.Reason
	case !s.Passed:
		return standFailed, failedChecks(s.Checks)
	}
	return standPassed, ""
}

// failedChecks names the checks that did not hold: the first three and how many.
func failedChecks(checks []report.Check) string {
	var names []string
	for _, c := range checks {
		if !c.Passed {
			name := c.Name
			if c.Outcome == report.OutcomeNotExercised {
				name += " (not exercised)"
			}
			names = append(names, name)
		}
	}
	switch {
	case len(checks) == 0:
		return "no checks recorded: the run judged nothing"
	case len(names) == 0:
		return "every check held, but the verdict is not a pass"
	case len(names) > 3:
		return fmt.Sprintf("%d of %d checks failed: %s, …", len(names), len(checks), strings.Join(names[:3], "; "))
	}
	return fmt.Sprintf("%d of %d %s failed: %s", len(names), len(checks),
		map[bool]string{true: "check", false: "checks"}[len(checks) == 1], strings.Join(names, "; "))
}

// pick says which of a student's runs of one scenario counts: the newest,
// or the best (a passed one, the newest of those; else the newest).
type pick string

const (
	pickNewest pick = "newest"
	pickBest   pick = "best"
)

// counted marks, for each student and scenario, the row that counts by p:
// counted[i] is true for that row.
func counted(rows []submission, p pick) []bool {
	best := map[[2]string]int{}
	for i, s := range rows {
		key := [2]string{s.Student, scenarioOf(s)}
		j, ok := best[key]
		if !ok || better(s, rows[j], p) {
			best[key] = i
		}
	}
	out := make([]bool, len(rows))
	for _, i := range best {
		out[i] = true
	}
	return out
}

// better reports whether a counts before b by p.
func better(a, b submission, p pick) bool {
	if p == pickBest {
		pa, _ := standingOf(a)
		pb, _ := standingOf(b)
		if (pa == standPassed) != (pb == standPassed) {
			return pa == standPassed
		}
	}
	return a.Doc.Info.Started.After(b.Doc.Info.Started)
}

// studentsPassed says how many students there are and how many passed:
// every scenario they handed in counts (by p) as passed.
func studentsPassed(rows []submission, p pick) (students, passed int) {
	ok := map[string]bool{}
	for i, c := range counted(rows, p) {
		if !c {
			continue
		}
		s := rows[i]
		st, _ := standingOf(s)
		if _, seen := ok[s.Student]; !seen {
			ok[s.Student] = true
		}
		ok[s.Student] = ok[s.Student] && st == standPassed
	}
	for _, v := range ok {
		if v {
			passed++
		}
	}
	return len(ok), passed
}

// standingCounts is how many rows stand each way, in the order printed.
func standingCounts(rows []submission) string {
	order := []standing{standPassed, standFailed, standDiffers, standNotRegraded, standCopied, standUnverified}
	n := map[standing]int{}
	for _, s := range rows {
		st, _ := standingOf(s)
		n[st]++
	}
	var parts []string
	for _, st := range order {
		if n[st] > 0 || slices.Contains([]standing{standPassed, standFailed}, st) {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	return strings.Join(parts, ", ")
}
