package wassal

import (
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/plot"
	"outboxlab/core/provider"
)

// timelineFigure draws a Day 13 run on the scenario clock: each payment's
// charge and status checks, the service's crash and its restart. It is a
// picture beside the report only (no terminal lines: the timeline says it
// all in words). The axis ends a second after the last call or the restart,
// not at the end of the watch, which would squeeze everything to the left.
func (o *session13Options) timelineFigure(run *session13Run) plot.Figure {
	last := run.restartAt
	for _, c := range run.ledger.Calls {
		last = later(last, c.At)
	}
	lanes := make([]plot.Lane, 0, len(run.ledger.Payments)+1)
	for _, p := range run.ledger.Payments {
		lane := plot.Lane{Label: p.Key, Note: string(p.Status)}
		for _, c := range run.ledger.Calls {
			if c.Key != p.Key {
				continue
			}
			symbol := "✓"
			if c.Failed() || c.Op == provider.OpCharge && slices.Contains(o.TimeoutKeys, c.Key) {
				symbol = "✗"
			}
			lane.Marks = append(lane.Marks, plot.Mark{At: c.At.Sub(clock.Start), Symbol: symbol})
		}
		lanes = append(lanes, lane)
	}
	if run.crashed {
		lanes = append(lanes, plot.Lane{Label: "service", Note: "life 1 killed, life 2 started", Marks: []plot.Mark{
			{At: run.crashAt.Sub(clock.Start), Symbol: "☠", Key: "CRASH"},
			{At: run.restartAt.Sub(clock.Start), Symbol: "↻", Key: "RESTART"}}})
	}
	fig := plot.Timeline("timeline", "Day 13: charges, the crash and the status checks", lanes, clock.Start,
		last.Add(time.Second).Sub(clock.Start), 60, "✓ answered   ✗ answer lost   ☠ crash (SIGKILL)   ↻ restart")
	fig.Text = ""
	return fig
}
