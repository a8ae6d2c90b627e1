package grade

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/worker"
)

// labWorker is the lab's own Day 16 worker (core/worker), run in process on
// the run's database: on Day 17 it drains what the student's redrive
// releases while the redrive sleeps. It runs only when every worker process
// sleeps, at the scenario time the scheduler stands at, on a clock of its
// own: the scheduler, not the lab's worker, moves the run's clock.
type labWorker struct {
	w *worker.Worker
}

// labID is the lab worker's id in the timeline and its rows' LockedBy.
const labID = "lab-worker"

// drain steps the lab's worker at the run's time until it claims nothing,
// attributing its row changes to a turn of its own, and returns when it
// next wants to run (zero: it has nothing left to wait for).
func (l *labWorker) drain(r *run) (time.Time, error) {
	for step := 0; step < 1000; step++ {
		now := r.clk.Now()
		l.w.Clock = clock.NewAt(now)
		res, err := l.w.Step(r.ctx)
		if err != nil {
			return time.Time{}, fmt.Errorf("the lab's worker: %w", err)
		}
		if res.Idle {
			return time.Time{}, nil
		}
		if res.Claimed == 0 {
			return l.w.Clock.Now(), nil // it would sleep until then
		}
		r.turns = append(r.turns, turn{worker: labID, inc: 1, at: now, call: "lab"})
		idx := len(r.turns) - 1
		for _, e := range res.Events {
			r.log(labID, "%s %s (attempt %d)", e.Kind, e.Key, e.Attempt)
		}
		news, err := readChanges(r.ctx, r.db, r.lastSeq)
		if err != nil {
			return time.Time{}, err
		}
		for _, c := range news {
			c.Turn = idx
			r.lastSeq = c.Seq
			r.changes = append(r.changes, c)
			r.log(labID, "%s", describeChange(c))
		}
	}
	return time.Time{}, fmt.Errorf("the lab's worker did not settle")
}
