package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// gridColumns is how many scenarios one grid shows side by side: a class
// with more gets several grids, one below the other, so that no grid is
// wider than a projector's 800 px (a BEFORE and its AFTER, adjacent in
// course order, stay in one grid).
const gridColumns = 4

// noStudent labels the grid's row of reports no student folder or
// --student names (a report directory of one's own).
const noStudent = "—"

// gridHTML writes the student × scenario grid: a row per student (by name;
// reports of no named student last), a column per scenario in course
// order, and in each cell the student's newest run of it: its verdict in a
// word, its checks and a link to its page. A cell carries the report it
// shows (data-report), so that a reader, or a test, can check it.
func gridHTML(b *strings.Builder, groups map[string][]Entry, order []string) {
	newest := map[[2]string]Entry{}
	runs := map[[2]string]int{}
	var students []string
	for _, name := range order {
		for _, e := range groups[name] { // newest first
			k := [2]string{e.Student, name}
			if _, ok := newest[k]; !ok {
				newest[k] = e
				if !slices.Contains(students, e.Student) {
					students = append(students, e.Student)
				}
			}
			runs[k]++
		}
	}
	slices.SortFunc(students, func(a, b string) int {
		if (a == "") != (b == "") {
			return map[bool]int{true: 1, false: -1}[a == ""]
		}
		return strings.Compare(a, b)
	})
	fmt.Fprintf(b, "<div id=\"grid\">\n<p class=\"muted\">%s × %s: each cell is the student's newest run "+
		"(click it for its page; the scenario's name for all its runs).</p>\n",
		Plural(len(students), "student"), Plural(len(order), "scenario"))
	for i := 0; i < len(order); i += gridColumns {
		cols := order[i:min(i+gridColumns, len(order))]
		b.WriteString("<table class=\"grid\">\n<thead><tr><th class=\"who\">Student</th>")
		for _, name := range cols {
			fmt.Fprintf(b, "<th><a href=\"#%s\">%s</a> <span class=\"muted\">%s</span></th>",
				esc(anchor(name)), esc(name), esc(string(groups[name][0].Kind)))
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, who := range students {
			fmt.Fprintf(b, "<tr><th class=\"who\">%s</th>", esc(Dash(who)))
			for _, name := range cols {
				k := [2]string{who, name}
				e, ok := newest[k]
				if !ok {
					b.WriteString("<td class=\"cell none\"><span class=\"muted\">no run</span></td>")
					continue
				}
				b.WriteString(gridCell(e, runs[k]))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table>\n")
	}
	b.WriteString("</div>\n")
}

// gridCell is the grid's cell of run e, the newest of runs runs.
func gridCell(e Entry, runs int) string {
	more := ""
	if runs > 1 {
		more = fmt.Sprintf(" <span class=\"muted\">(newest of %d)</span>", runs)
	}
	return fmt.Sprintf("<td class=\"cell %s\" data-student=\"%s\" data-scenario=\"%s\" data-report=\"%s\">"+
		"<a href=\"%s\"><span class=\"word\">%s</span> <span class=\"checks\">%s</span></a>%s</td>",
		resultClass(e), esc(e.Student), esc(e.Scenario), esc(e.Report), url(e.HTML), esc(verdictWord(e)),
		esc(fmt.Sprintf("%d/%d", e.ChecksPassed, e.ChecksTotal)), more)
}

var verdictTag = regexp.MustCompile(`^\[([A-Z][A-Z ]*[A-Z])`)

// verdictWord is a run's verdict in a word or two: PASS, FAIL, NOT
// EXERCISED, ...; EDITED for a report whose header disagrees with its
// body, NOT REGRADED for a passing grade report nobody regraded.
func verdictWord(e Entry) string {
	switch {
	case len(e.Disagrees) > 0:
		return "EDITED"
	case e.NotRegraded:
		return "NOT REGRADED"
	}
	if m := verdictTag.FindStringSubmatch(strings.TrimSpace(e.Verdict)); m != nil {
		return m[1]
	}
	if e.ExitCode == 0 {
		return "PASS"
	}
	return "FAIL"
}

// shownFailed is how many of a failing verdict's checks it lists.
const shownFailed = 3

// verdictHTML is a run's verdict as the index and its page show it: a
// passing verdict whole; a failing one's headline, then its first three
// failed checks and how many failed (the checks list has them all).
func verdictHTML(e Entry) string {
	head, _, cut := strings.Cut(e.Verdict, " — ")
	if e.ExitCode == 0 || !cut || len(e.failed) == 0 {
		return esc(e.Verdict)
	}
	what := "failed"
	if e.Kind == Before {
		what = "not reproduced"
	}
	list := e.failed[:min(shownFailed, len(e.failed))]
	rest := ""
	if n := len(e.failed) - len(list); n > 0 {
		rest = fmt.Sprintf("; … and %d more", n)
	}
	return fmt.Sprintf("%s<br/><span class=\"why\">%s %s: %s%s</span>", esc(head),
		esc(Plural(len(e.failed), "check")), what, esc(strings.Join(list, "; ")), rest)
}

// failedNames names the checks that did not hold, in the report's order:
// those that failed, else those that were not exercised.
func failedNames(checks []Check) []string {
	var failed, idle []string
	for _, c := range checks {
		switch {
		case c.Passed:
		case c.Outcome == OutcomeNotExercised:
			idle = append(idle, c.Name)
		default:
			failed = append(failed, c.Name)
		}
	}
	if len(failed) == 0 {
		return idle
	}
	return failed
}
