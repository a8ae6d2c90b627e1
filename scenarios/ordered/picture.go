package ordered

import (
	"fmt"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
	"outboxlab/core/plot"
	"outboxlab/core/report"
)

// pictureLegend explains the marks of the family's timeline picture.
const pictureLegend = "✓ applied   ✗ failed, retried   ☠ dead-lettered   P parked   ‖ partition paused"

// picture draws a run's consumer events on the scenario clock, one lane per
// partition, from the start until the consumer went idle (before any fix);
// each lane's note counts what happened on it, the fix's recovery included.
// It is an SVG only: the report's text timeline tells the same story.
func (o *options) picture(name, title string, run *run) plot.Figure {
	lanes := make([]plot.Lane, o.Partitions)
	type tally struct{ applied, failed, dead, parked, paused, later int }
	counts := make([]tally, o.Partitions)
	for p := range lanes {
		lanes[p].Label = fmt.Sprintf("partition %d", p)
	}
	for _, e := range run.timeline {
		if e.ev == nil || e.ev.Kind == keyedlog.Advanced || e.ev.Kind == keyedlog.Resumed {
			continue
		}
		p := e.ev.Record.Partition
		if p < 0 || p >= o.Partitions {
			continue
		}
		if !run.fixAt.IsZero() && !e.at.Before(run.fixAt) {
			if e.ev.Kind == keyedlog.Applied {
				counts[p].later++
			}
			continue
		}
		symbol := ""
		switch e.ev.Kind {
		case keyedlog.Applied:
			symbol = "✓"
			counts[p].applied++
		case keyedlog.Retrying:
			symbol = "✗"
			counts[p].failed++
		case keyedlog.DeadLettered:
			symbol = "☠"
			counts[p].dead++
		case keyedlog.Parked:
			symbol = "P"
			counts[p].parked++
		case keyedlog.Paused:
			symbol = "‖"
			counts[p].paused++
		default:
			continue
		}
		lanes[p].Marks = append(lanes[p].Marks, plot.Mark{At: e.at.Sub(clock.Start), Symbol: symbol, Key: shortID(e.ev.Record)})
	}
	for p, c := range counts {
		var parts []string
		add := func(n int, what string) {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, what))
			}
		}
		add(c.applied, "applied")
		add(c.failed, "retried")
		add(c.dead, "dead-lettered")
		add(c.parked, "parked")
		add(c.paused, "paused")
		if c.later > 0 {
			parts = append(parts, fmt.Sprintf("after the fix: %d applied", c.later))
		}
		lanes[p].Note = report.Dash(strings.Join(parts, ", "))
	}
	f := plot.Timeline(name, title, lanes, clock.Start, run.idle.at.Sub(clock.Start), 60, pictureLegend)
	f.Text = ""
	return f
}
