package wassal

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/scenarios"
)

// The accepted range of every numeric and duration flag of a Wassal day is
// declared once, in the day's limits method: the same list gives the
// registry its Limits and gives Validate its refusals, so the two cannot
// drift apart. Work that depends on several flags together (attempts ×
// keys, a clock moved by doubling backoffs) is bounded in Validate by
// arithmetic on the flags, never by a stopwatch.

// limit is one flag's accepted range and the check of its current value.
type limit struct {
	scenarios.Limit
	check func() error
}

// intLimit bounds an int flag to lo..hi.
func intLimit(flag string, v, lo, hi int) limit {
	return limit{scenarios.Limit{Flag: flag, Min: strconv.Itoa(lo), Max: strconv.Itoa(hi)}, func() error {
		if v < lo || v > hi {
			return fmt.Errorf("--%s must be between %d and %d, got %d", flag, lo, hi, v)
		}
		return nil
	}}
}

// durationLimit bounds a duration flag to lo..hi, in whole milliseconds: the
// scenario clock stores milliseconds, so a finer duration would be rounded
// away on disk and the run would not be the one asked for.
func durationLimit(flag string, v, lo, hi time.Duration) limit {
	return limit{scenarios.Limit{Flag: flag, Min: durationText(lo), Max: durationText(hi)}, func() error {
		switch {
		case v < lo || v > hi:
			return fmt.Errorf("--%s must be between %s and %s, got %s", flag, durationText(lo), durationText(hi), durationText(v))
		case v%time.Millisecond != 0:
			return fmt.Errorf("--%s must be a whole number of milliseconds, got %s", flag, v)
		}
		return nil
	}}
}

// checkLimits returns the first value outside its limit.
func checkLimits(ls []limit) error {
	for _, l := range ls {
		if err := l.check(); err != nil {
			return err
		}
	}
	return nil
}

// declare gives the registry the limits of ls.
func declare(ls []limit) []scenarios.Limit {
	out := make([]scenarios.Limit, len(ls))
	for i, l := range ls {
		out[i] = l.Limit
	}
	return out
}

// durationText is a duration as a person writes it: 24h, 1m, 1ms, 0s.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// maxFlagDuration bounds every duration flag of the family.
const maxFlagDuration = 24 * time.Hour

// maxSpan bounds how far a run may move the scenario clock. Scenario times
// are stored as text that sorts in time order only up to the year 9999, and
// a time.Duration overflows past 292 years; a century keeps both far away.
const maxSpan = 100 * 365 * 24 * time.Hour

// span adds up clock moves without overflowing: past maxSpan it stays just
// above it, which is all a budget check needs to know.
type span time.Duration

// add moves the span on by n × d (n and d not negative).
func (s span) add(n int64, d time.Duration) span {
	if d <= 0 || n <= 0 {
		return s
	}
	room := time.Duration(maxSpan) - time.Duration(s)
	if room < 0 || d > room || time.Duration(n) > room/d {
		return span(maxSpan + 1)
	}
	return s + span(time.Duration(n)*d)
}

// backoffs adds the delays base × 2^(n-1), never above ceiling when it is
// set, after failed attempts from..to (1-based, inclusive), each followed by
// the worker's wake-up slack.
func (s span) backoffs(base, ceiling time.Duration, from, to int) span {
	for n := max(from, 1); n <= to && s <= span(maxSpan); n++ {
		d := base
		for i := 1; i < n && d <= time.Duration(maxSpan); i++ {
			d *= 2
		}
		if ceiling > 0 && d > ceiling {
			d = ceiling
		}
		s = s.add(1, d).add(1, time.Millisecond)
	}
	return s
}

// tooLong reports whether the span moves the clock past maxSpan: a run that
// long is refused.
func (s span) tooLong() bool { return s > span(maxSpan) }

// text says how far a span moves the clock, for a refusal.
func (s span) text() string {
	if s.tooLong() {
		return "more than 100 years"
	}
	return durationText(time.Duration(s).Round(time.Second))
}
