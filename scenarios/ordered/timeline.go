package ordered

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
)

// errorNotes number the distinct error texts of a report: a timeline line or
// a table cell shows [1], and the text is printed once, below the timeline
// that first met it. That keeps a line of the story within report.MaxWidth.
type errorNotes struct {
	texts   []string
	printed int
}

// ref is the reference of text, numbered on first use.
func (n *errorNotes) ref(text string) string {
	i := slices.Index(n.texts, text)
	if i < 0 {
		n.texts = append(n.texts, text)
		i = len(n.texts) - 1
	}
	return fmt.Sprintf("[%d]", i+1)
}

// flush writes the texts numbered since the last flush.
func (n *errorNotes) flush(r *page) {
	if n.printed == len(n.texts) {
		return
	}
	r.Line("")
	for i := n.printed; i < len(n.texts); i++ {
		r.Line(fit(fmt.Sprintf("[%d] %s", i+1, n.texts[i]), "    "))
	}
	n.printed = len(n.texts)
}

// timelineLine renders one timeline entry in scenario time; errors are
// referred to by their note.
func timelineLine(e entry, notes *errorNotes) string {
	at := stamp(e.at)
	switch {
	case e.note != "":
		return fit(fmt.Sprintf("%s  ━━ %s", at, e.note), strings.Repeat(" ", len(at)+5))
	case e.delivery != nil:
		d := e.delivery
		return fmt.Sprintf("%s  %-5s %-5s customer care took event #%d %s (CustomerCareLog)",
			at, "—", strings.TrimPrefix(d.Event.CorrelationID, "order-"), d.Event.ID, d.Event.Type)
	}
	ev := e.ev
	rec := ev.Record
	head := fmt.Sprintf("%s  %-5s %-5s %-15s ", at, rec.Place(), shortID(rec), rec.Type)
	if ev.Kind == keyedlog.Advanced || ev.Kind == keyedlog.Resumed || ev.Kind == keyedlog.Released {
		head = fmt.Sprintf("%s  %-5s ", at, "—") // no record: the clock, or a whole partition
	}
	line := head + eventText(ev, notes)
	return fit(line, strings.Repeat(" ", len(at)+2+6+6))
}

// eventText says what happened to an event's record.
func eventText(ev *keyedlog.Event, notes *errorNotes) string {
	rec := ev.Record
	failed := func() string {
		return fmt.Sprintf("attempt %d/%d FAILED %s", ev.Attempt, ev.MaxAttempts, notes.ref(ev.Detail))
	}
	switch ev.Kind {
	case keyedlog.Advanced:
		return fmt.Sprintf("nothing due → clock advances to %s (1 ms past the next due)", stamp(ev.NextAttempt))
	case keyedlog.Applied:
		switch {
		case ev.Via == keyedlog.ViaReplay:
			return "REPLAYED: " + ev.Detail
		case ev.Attempt > 1:
			return fmt.Sprintf("attempt %d/%d applied: %s", ev.Attempt, ev.MaxAttempts, ev.Detail)
		}
		return "applied: " + ev.Detail
	case keyedlog.Duplicate:
		if ev.Via == keyedlog.ViaReplay {
			return "REPLAYED → skipped, already applied (idempotent consumer)"
		}
		return "skipped, already applied"
	case keyedlog.Retrying:
		if ev.Delay == 0 {
			return failed() + " → retried at once"
		}
		return failed() + " → retry in " + clock.Millis(ev.Delay)
	case keyedlog.DeadLettered:
		if ev.Attempt < ev.MaxAttempts {
			return failed() + " → PERMANENT, DEAD-LETTERED"
		}
		return failed() + " → DEAD-LETTERED"
	case keyedlog.Paused:
		return failed() + fmt.Sprintf(" → PARTITION %d PAUSED here", rec.Partition)
	case keyedlog.Parked:
		return "PARKED: " + shortReason(ev.Detail)
	case keyedlog.Held:
		return "REMEMBERED: " + shortReason(ev.Detail)
	case keyedlog.Published:
		return "PUBLISHED " + ev.Detail + " with the dead letter"
	case keyedlog.Resumed:
		return "RESUMED " + ev.Detail + ": read again from its head"
	case keyedlog.Released:
		return "UNBLOCKED: " + ev.Detail + " released"
	case keyedlog.Redriven:
		return "REDRIVEN: " + ev.Detail + " appended at the end"
	case keyedlog.ReplayFailed:
		return "REPLAY FAILED " + notes.ref(ev.Detail) + ": replay stopped, holds kept"
	}
	return string(ev.Kind) + ": " + ev.Detail
}

// shortID is a record as the log table names it: 42#2.
func shortID(rec keyedlog.Record) string {
	return fmt.Sprintf("%d#%d", orderOf(rec), rec.Sequence)
}

// shortReason is a hold's reason up to its first colon: "correlation id
// order-42 is poisoned"; the Holds table has the rest.
func shortReason(reason string) string {
	short, _, _ := strings.Cut(reason, ": ")
	return short
}

// fit breaks a line wider than report.MaxWidth at spaces, continuing on
// lines that start with indent.
func fit(line, indent string) string {
	if report.Width(line) <= report.MaxWidth {
		return line
	}
	lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
	var out []string
	cur := lead
	for _, w := range strings.Split(line[len(lead):], " ") {
		switch {
		case cur == lead || cur == indent:
			cur += w
		case report.Width(cur)+1+report.Width(w) <= report.MaxWidth:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = indent + w
		}
	}
	return strings.Join(append(out, cur), "\n")
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
