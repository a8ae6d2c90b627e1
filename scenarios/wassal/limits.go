package wassal

import (
	"time"

	"github.com/spf13/pflag"

	"outboxlab/scenarios"
)

// Every numeric and duration flag of a Wassal day is declared once, with
// its range, in the day's bind (scenarios.Flags): the declaration gives the
// registry its Limits and Validate its refusals, so the two cannot drift
// apart. Work that depends on several flags together (attempts × keys, a
// clock moved by doubling backoffs) is bounded in Validate by arithmetic on
// the flags, never by a stopwatch.

// declareOn starts a day's declarations on fs. The family writes durations
// as a person types them (24h, 1m), in --help and in refusals alike.
func declareOn(d *scenarios.Declared, fs *pflag.FlagSet) *scenarios.Flags {
	f := d.Declare(fs)
	f.HelpDuration, f.RefusalDuration = scenarios.CompactDuration, scenarios.CompactDuration
	return f
}

// durationText is a duration as a person writes it: 24h, 1m, 1ms, 0s.
func durationText(d time.Duration) string { return scenarios.CompactDuration(d) }

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
