package governance

import (
	"time"

	"outboxlab/core/emission"
	"outboxlab/core/plot"
	"outboxlab/core/report"
)

// timelineFigure attaches the run's emissions as an SVG timeline on the
// scenario clock (one lane per entry), without adding terminal lines: the
// report's text timeline already tells them.
func timelineFigure(r *report.Report, name, title string, events []emission.Event, start, end time.Time) {
	var lanes []plot.Lane
	index := map[string]int{}
	for _, ev := range events {
		if ev.Kind != emission.Handled && ev.Kind != emission.Refused {
			continue
		}
		i, ok := index[ev.Entry.Key]
		if !ok {
			i = len(lanes)
			index[ev.Entry.Key] = i
			lanes = append(lanes, plot.Lane{Label: ev.Entry.Key})
		}
		lanes[i].Marks = append(lanes[i].Marks, plot.Mark{At: ev.At.Sub(start), Symbol: markOf(ev)})
		lanes[i].Note = string(ev.Transition.To)
		if ev.Kind == emission.Refused {
			lanes[i].Note = "stale write refused"
		}
	}
	if len(lanes) == 0 {
		return
	}
	f := plot.Timeline(name, title, lanes, start, end.Sub(start), 60,
		"✓ delivered   ✗ failed attempt   ~ deferred   ☠ dead-lettered   ! write refused")
	f.Text = ""
	r.Figure(f)
}

// markOf is an event's symbol in the picture.
func markOf(ev emission.Event) string {
	switch {
	case ev.Kind == emission.Refused:
		return "!"
	case ev.Transition.To == emission.Delivered:
		return "✓"
	case ev.Transition.To == emission.DeadLettered:
		return "☠"
	case ev.Transition.To == emission.Deferred:
		return "~"
	}
	return "✗"
}
