package ordered

import (
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
)

// timelineLine renders one timeline entry in scenario time.
func timelineLine(e entry) string {
	at := stamp(e.at)
	switch {
	case e.note != "":
		return fmt.Sprintf("%s  ━━ %s", at, e.note)
	case e.delivery != nil:
		d := e.delivery
		return fmt.Sprintf("%s  %-6s %-9s listener: customer care took event #%d %s → %s",
			at, "—", d.Event.CorrelationID, d.Event.ID, d.Event.Type, d.Detail)
	}
	ev := e.ev
	rec := ev.Record
	head := fmt.Sprintf("%s  %-6s %-9s %d %-15s ", at, rec.Place(), rec.Key, rec.Sequence, rec.Type)
	other := fmt.Sprintf("%s  %-6s %-9s ", at, "—", rec.Key)
	switch ev.Kind {
	case keyedlog.Advanced:
		return fmt.Sprintf("%s  %-6s nothing due → clock advances to %s (next due %s + 1 ms)",
			at, "—", stamp(ev.NextAttempt), stamp(ev.NextAttempt.Add(-claim.WakeupSlack)))
	case keyedlog.Applied:
		if ev.Via == keyedlog.ViaReplay {
			return head + "REPLAYED → applied: " + ev.Detail
		}
		if ev.Attempt > 1 {
			return head + fmt.Sprintf("attempt %d/%d applied: %s", ev.Attempt, ev.MaxAttempts, ev.Detail)
		}
		return head + "applied: " + ev.Detail
	case keyedlog.Duplicate:
		if ev.Via == keyedlog.ViaReplay {
			return head + "REPLAYED → skipped, " + ev.Detail + " (idempotent consumer)"
		}
		return head + "skipped, " + ev.Detail
	case keyedlog.Retrying:
		line := head + fmt.Sprintf("attempt %d/%d FAILED (%s)", ev.Attempt, ev.MaxAttempts, ev.Detail)
		if ev.Delay == 0 {
			return line + " → retried at once"
		}
		return line + fmt.Sprintf(" → backoff %s → due %s (the partition waits)", clock.Millis(ev.Delay), stamp(ev.NextAttempt))
	case keyedlog.DeadLettered:
		return head + fmt.Sprintf("attempt %d/%d FAILED (%s) → DEAD-LETTERED", ev.Attempt, ev.MaxAttempts, ev.Detail)
	case keyedlog.Paused:
		return head + fmt.Sprintf("attempt %d/%d FAILED (%s) → PARTITION %d PAUSED, the record stays at its head",
			ev.Attempt, ev.MaxAttempts, ev.Detail, rec.Partition)
	case keyedlog.Parked:
		return head + "PARKED: " + ev.Detail
	case keyedlog.Held:
		return other + "REMEMBERED: " + ev.Detail
	case keyedlog.Published:
		return other + "PUBLISHED " + ev.Detail + " in the dead-letter transaction"
	case keyedlog.Resumed:
		return fmt.Sprintf("%s  %-6s RESUMED %s: the consumer reads it again from the record at its head", at, "—", ev.Detail)
	case keyedlog.Released:
		return other + "UNBLOCKED: " + ev.Detail + " released"
	case keyedlog.Redriven:
		return head + "REDRIVEN: " + ev.Detail + " appended at the end of partition " + fmt.Sprint(rec.Partition)
	case keyedlog.ReplayFailed:
		return head + "REPLAY FAILED (" + ev.Detail + "): replay stopped, holds kept"
	}
	return head + string(ev.Kind) + ": " + ev.Detail
}

// stamp is a timeline time of day, with the day added once scenario time has
// passed midnight of the day it started (a long backoff or fix):
// 09:00:00.602Z+1d. The zero time is report.Empty.
func stamp(t time.Time) string {
	if t.IsZero() {
		return report.Empty
	}
	return clock.DayStamp(t)
}
