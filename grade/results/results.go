// Package results writes a grade as the graders instructors use read it:
// Gradescope's results.json, PrairieLearn's results.json, JUnit XML (for a
// student's own CI) and the lab's own JSON. Every format has one test per
// check per variation, one point each, so the scores add up to the maximum;
// a failing test carries its detail. The worker's output reaches only a
// format that can hide it from students (Gradescope's hidden test).
package results

import (
	"fmt"
	"slices"
	"strings"
)

// Formats are the formats Write takes, in the order help lists them.
var Formats = []string{"gradescope", "prairielearn", "junit", "json"}

// A Check is one check of one variation, as the grade judged it.
type Check struct {
	Name         string // tagged with its variation: "v2: attempts counted at claim time"
	Detail       string
	Passed       bool
	NotExercised bool // its precondition did not occur: not passed
}

// Results is a finished grade.
type Results struct {
	Day     string // the Day's id, session-16
	Title   string // the grade's title
	Seed    uint64
	Verdict string
	Checks  []Check
	// Output is the last lines the worker printed in the first failing
	// variation, made safe: for instructors only (see the package comment).
	Output []string
}

// Score is how many checks held, of how many.
func (r Results) Score() (held, total int) {
	for _, c := range r.Checks {
		if c.Passed {
			held++
		}
	}
	return held, len(r.Checks)
}

// message is a failing check's text for a student: what failed, and why.
func (c Check) message() string {
	switch {
	case c.Passed:
		return ""
	case c.NotExercised:
		return "not exercised: " + c.Detail
	}
	return "failed: " + c.Detail
}

// variation is the tag a check's name starts with (v1), "" when none.
func (c Check) variation() string {
	tag, _, ok := strings.Cut(c.Name, ": ")
	if !ok || len(tag) < 2 || tag[0] != 'v' || strings.Trim(tag[1:], "0123456789") != "" {
		return ""
	}
	return tag
}

// Write renders r in format (one of Formats).
func Write(format string, r Results) ([]byte, error) {
	switch format {
	case "gradescope":
		return gradescope(r)
	case "prairielearn":
		return prairielearn(r)
	case "junit":
		return junit(r)
	case "json":
		return ownJSON(r)
	}
	return nil, fmt.Errorf("--results-format %q: want %s", format, strings.Join(Formats, ", "))
}

// Known reports whether format is one Write takes.
func Known(format string) bool { return slices.Contains(Formats, format) }
