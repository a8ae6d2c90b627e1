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
// takes the plural, unless many gives the plural form ("poison row
// carries", "poison rows carry"). It is the lab's one pluraliser.
func Plural[N ~int | ~int64](n N, noun string, many ...string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, noun, many...)
}

// Noun is noun as Plural writes it after n, without the count: for a count
// written another way (inspect's 1,234 rows).
func Noun[N ~int | ~int64](n N, noun string, many ...string) string {
	switch {
	case n == 1:
		return noun
	case len(many) > 0:
		return many[0]
	}
	return plural(noun)
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
