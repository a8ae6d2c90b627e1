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

// Plural counts a noun: "1 call", "5 calls", "2 deliveries", "2 keys",
// "2 batches", "3 boxes". The noun is English and singular; its last word
// takes the plural.
func Plural[N ~int | ~int64](n N, noun string) string {
	count := strconv.FormatInt(int64(n), 10) + " "
	if n == 1 {
		return count + noun
	}
	return count + plural(noun)
}

func plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "y") && !endsInVowelY(noun):
		return strings.TrimSuffix(noun, "y") + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// endsInVowelY reports a noun like "key" or "day", whose y stays.
func endsInVowelY(noun string) bool {
	return len(noun) >= 2 && strings.ContainsRune("aeiou", rune(noun[len(noun)-2])) && noun[len(noun)-1] == 'y'
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
