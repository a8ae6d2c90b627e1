package changelog

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"outboxlab/core/clock"
)

// How the lab shows rows and their changes: a timeline line per change, a
// stored time as a stamp, long text clipped.

// Describe is one change log row as a timeline line.
func Describe(c Change) string {
	switch c.Op {
	case "INSERT":
		switch c.Table {
		case "AuditLog":
			return fmt.Sprintf("audit row %d: %s by %s", c.RowID, Clip(c.New["action"], 24), Clip(c.New["actor"], 24))
		case "Redrives":
			return fmt.Sprintf("redrive %d %s: released (batch %s, was AttemptCount %s)", c.RowID,
				c.New["messagekey"], c.New["batch"], c.New["originalattemptcount"])
		}
		return fmt.Sprintf("row INSERTED into %s (Id %d)", c.Table, c.RowID)
	case "DELETE":
		return fmt.Sprintf("row DELETED from %s (Id %d)", c.Table, c.RowID)
	}
	if c.Table == "Redrives" {
		var parts []string
		for _, col := range []string{"Outcome", "VerifiedTransactionId"} {
			if c.Changed(col) {
				n, _ := c.NewValue(col)
				parts = append(parts, fmt.Sprintf("%s %s", col, OrDash(n)))
			}
		}
		return fmt.Sprintf("redrive %d %s: %s", c.RowID, c.New["messagekey"], strings.Join(parts, ", "))
	}
	return describeUpdate(c)
}

// describeUpdate is an update of a payment or a message.
func describeUpdate(c Change) string {
	var parts []string
	for _, col := range []string{"Status", "AttemptCount", "ProviderTransactionId"} {
		if c.Changed(col) {
			o, _ := c.OldValue(col)
			n, _ := c.NewValue(col)
			parts = append(parts, fmt.Sprintf("%s %s→%s", col, OrDash(o), Clip(OrDash(n), 24)))
		}
	}
	for _, col := range []string{"LockedBy", "NextAttemptUtc", "LastError"} {
		if !c.Changed(col) {
			continue
		}
		if n, ok := c.NewValue(col); ok {
			if t, ok := ParseISO(n); ok {
				n = clock.DayStamp(t)
			}
			parts = append(parts, fmt.Sprintf("%s %s", col, Clip(n, 24)))
		} else {
			parts = append(parts, col+" cleared")
		}
	}
	if len(parts) == 0 && c.Changed("LockedUntilUtc") {
		// A lease renewed (Day 18): the only change is the lease's end.
		n, _ := c.NewValue("LockedUntilUtc")
		if t, ok := ParseISO(n); ok {
			n = clock.DayStamp(t)
		}
		parts = []string{"LockedUntilUtc " + Clip(OrDash(n), 24) + " (renewed)"}
	}
	if len(parts) == 0 {
		parts = []string{"no column the timeline shows"}
	}
	key, what := c.New["messagekey"], "message"
	if c.Table == "Payments" {
		key, what = c.New["paymentkey"], "payment"
	}
	return fmt.Sprintf("%s %d %s: %s", what, c.RowID, key, strings.Join(parts, ", "))
}

var isoText = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// ParseISO reads the lab's time text; ok is false for any other text.
func ParseISO(s string) (time.Time, bool) {
	if !isoText.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(clock.ISOLayout, s)
	return t, err == nil
}

// Stamp shows a stored time as a timeline stamp, anything else clipped.
func Stamp(s string) string {
	if s == "" {
		return "-"
	}
	if t, ok := ParseISO(s); ok {
		return clock.DayStamp(t)
	}
	return Clip(s, 14)
}

// Clip cuts s to n bytes, marking the cut.
func Clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// OrDash is s, or a dash for nothing.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// OneLine is an error's text on one line.
func OneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
