package report

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// MeasuredMarker ends a body line that holds a wall-clock measurement;
// Compare skips such lines, since they differ from run to run by nature.
const MeasuredMarker = "[measured]"

// DatabaseMarker ends a body line, or the title of a whole section, that
// describes the database itself (its schema DDL, what the server does where
// SQLite takes BEGIN IMMEDIATE): it differs between SQLite and PostgreSQL by
// nature, so compare skips it as it skips measured lines.
const DatabaseMarker = "[database]"

// ComparableBody returns the part of a report that two runs of the same
// command must reproduce byte for byte: the body without measured lines.
func ComparableBody(text string) (string, bool) {
	_, body, ok := SplitHeader(text)
	if !ok {
		return "", false
	}
	return dropMeasured(body), true
}

// Comparable is body without the lines a comparison skips (see dropMeasured):
// what a run must reproduce byte for byte, on either database.
func Comparable(body string) string { return dropMeasured(body) }

// dropMeasured drops the lines a comparison skips: measured lines and lines
// that describe the database, and every line of a section whose title is
// marked as describing the database (up to the next section).
func dropMeasured(body string) string {
	lines := strings.SplitAfter(body, "\n")
	kept := lines[:0]
	inDatabase := false
	for _, l := range lines {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "## ") {
			inDatabase = strings.HasSuffix(t, DatabaseMarker)
		}
		if inDatabase || strings.HasSuffix(t, MeasuredMarker) || strings.HasSuffix(t, DatabaseMarker) {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "")
}

// Diff returns a unified diff of the lines as written (compare --raw) of two report bodies, empty when they are the same.
func Diff(nameA, bodyA, nameB, bodyB string) string {
	if bodyA == bodyB {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(bodyA), B: difflib.SplitLines(bodyB),
		FromFile: nameA, ToFile: nameB, Context: 3,
	})
	if err != nil || d == "" {
		// difflib fails only on writer errors; say at least that they differ.
		return "--- " + nameA + "\n+++ " + nameB + "\n(bodies differ)\n"
	}
	return d
}
