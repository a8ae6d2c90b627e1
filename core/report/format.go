package report

import (
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
)

// Empty is what a report cell shows when there is nothing to show.
const Empty = "—"

// Dash returns s, or Empty when s is "".
func Dash(s string) string {
	if s == "" {
		return Empty
	}
	return s
}

// StampOrDash formats t as a clock.Stamp, or returns Empty for the zero time.
func StampOrDash(t time.Time) string {
	if t.IsZero() {
		return Empty
	}
	return clock.Stamp(t)
}

// JoinInts lists integers for a report line: "1, 2, 3".
func JoinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// JoinStrings lists string values, such as statuses, for a report line:
// "sent, failed".
func JoinStrings[S ~string](ss []S) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// Plural counts a noun: "1 call", "5 calls", "2 deliveries" (a noun ending
// in y takes "ies").
func Plural[N ~int | ~int64](n N, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return strconv.FormatInt(int64(n), 10) + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun + "s"
}

// AllEqual reports whether every value in xs equals want; it is false for
// an empty xs, so a check built on it cannot pass on no data.
func AllEqual[T comparable](xs []T, want T) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if x != want {
			return false
		}
	}
	return true
}
