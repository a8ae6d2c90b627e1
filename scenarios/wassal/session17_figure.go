package wassal

import (
	"cmp"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/plot"
	"outboxlab/core/worker"
)

// timelineFigure draws the dead letters of a Day 17 run on the scenario
// clock: every status check the provider received for them (Day 16's
// attempts, the redrive's replays and verifications), each dead-lettering,
// and the redrive. A picture beside the report only: the timeline tells it
// in words, and the axis spans the half hour between Day 16 and the redrive.
func (o *session17Options) timelineFigure(run *session17Run) plot.Figure {
	lanes := make([]plot.Lane, 0, len(run.deadKeys))
	for _, k := range run.deadKeys {
		m, _ := run.ledger.Message(k)
		pay, _ := run.ledger.Payment(k)
		lane := plot.Lane{Label: k, Note: string(m.Status) + ", payment " + string(pay.Status),
			Marks: []plot.Mark{{At: run.redriveAt.Sub(clock.Start), Symbol: "↻"}}}
		for _, c := range run.ledger.Calls {
			if c.Key != k {
				continue
			}
			symbol := "✓"
			if c.Failed() {
				symbol = "✗"
			}
			lane.Marks = append(lane.Marks, plot.Mark{At: c.At.Sub(clock.Start), Symbol: symbol})
		}
		for _, e := range run.events {
			if e.Key == k && e.Kind == worker.DeadLettered {
				lane.Marks = append(lane.Marks, plot.Mark{At: e.At.Sub(clock.Start), Symbol: "☠"})
			}
		}
		slices.SortStableFunc(lane.Marks, func(a, b plot.Mark) int { return cmp.Compare(a.At, b.At) })
		lanes = append(lanes, lane)
	}
	fig := plot.Timeline("timeline", "Day 17: the dead letters from Day 16 to the redrive", lanes, clock.Start,
		run.ended.Add(time.Second).Sub(clock.Start), 60, "✓ status check answered   ✗ failed   ☠ dead-lettered   ↻ redrive")
	fig.Text = ""
	return fig
}
