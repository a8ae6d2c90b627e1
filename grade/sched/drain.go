package sched

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/grade/changelog"
)

// drain steps the lab's worker at the run's time until it claims nothing,
// attributing its row changes to a turn of its own, and returns when it
// next wants to run (zero: it has nothing left to wait for).
func (r *Run) drain() (time.Time, error) {
	for step := 0; step < 1000; step++ {
		now := r.cfg.Clock.Now()
		res, err := r.cfg.LabWorker.Step(r.ctx, now)
		if err != nil {
			return time.Time{}, fmt.Errorf("the lab's worker: %w", err)
		}
		if res.Idle {
			return time.Time{}, nil
		}
		if !res.Claimed {
			return res.Wake, nil // it would sleep until then
		}
		r.Turns = append(r.Turns, Turn{Worker: LabWorkerID, Inc: 1, At: now, Call: "lab"})
		idx := len(r.Turns) - 1
		for _, e := range res.Events {
			r.Log(LabWorkerID, "%s", e)
		}
		for _, c := range r.read("after a step of the lab's worker at " + clock.DayStamp(now)) {
			c.Turn = idx
			r.Changes = append(r.Changes, c)
			r.Log(LabWorkerID, "%s", changelog.Describe(c))
		}
	}
	return time.Time{}, fmt.Errorf("the lab's worker did not settle")
}
