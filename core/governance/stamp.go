package governance

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
)

// Stamp formats t as a timeline time of day (clock.Stamp), followed by the
// day when t is not on the scenario clock's first day: 09:00:00.001Z on it,
// 09:00:00.001Z+1d a day later. A lease, a backoff or a review can reach into
// later days; a time of day alone would then seem to go back.
func Stamp(t time.Time) string {
	s := clock.Stamp(t)
	if d := t.UTC().Sub(clock.Start.Truncate(24*time.Hour)) / (24 * time.Hour); d > 0 {
		s += fmt.Sprintf("+%dd", d)
	}
	return s
}

// StampOrDash is Stamp, or report.Empty for the zero time.
func StampOrDash(t time.Time) string {
	if t.IsZero() {
		return report.Empty
	}
	return Stamp(t)
}
