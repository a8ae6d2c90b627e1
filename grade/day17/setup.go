package day17

import (
	"context"
	"fmt"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/provider"
	"outboxlab/core/worker"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/sched"
	"outboxlab/scenarios/wassal"
)

// redriveAfter is when the redrive starts: half an hour after Day 16 began.
const redriveAfter = 30 * time.Minute

// Setup builds Day 16's end with the lab's own worker, moves the clock to
// the redrive's time and fixes the provider (or not); the same worker then
// drains what the redrive releases.
func (v variation) Setup(ctx context.Context, b *dayspec.Bench) (sched.LabWorker, error) {
	if _, err := b.Store.DB().ExecContext(ctx, b.DDL(wassal.RedrivesSchema())); err != nil {
		return nil, fmt.Errorf("create Redrives: %w", err)
	}
	for _, k := range v.More {
		b.Provider.Script(k, provider.Rule{FailFirst: provider.FailForever})
	}
	w := &worker.Worker{ID: sched.LabWorkerID, Store: b.Store, Clock: b.Clock, Handler: wassal.ConfirmHandler(b.Provider),
		Policy: backoff.Policy{Backoff: backoff.Backoff{Base: v.BaseBackoff}, DeadLetter: true},
		Lease:  v.Lease, Batch: v.Batch}
	for step := 0; ; step++ {
		if step > 1000 {
			return nil, fmt.Errorf("Day 16's drain did not settle")
		}
		res, err := w.Step(ctx)
		if err != nil {
			return nil, fmt.Errorf("Day 16's drain: %w", err)
		}
		if res.Idle {
			break
		}
	}
	b.Clock.AdvanceTo(clock.Start.Add(redriveAfter))
	if v.Fixed {
		for _, k := range v.Poison {
			b.Provider.Script(k, provider.Rule{Outcome: provider.Declined})
		}
		for _, k := range v.More {
			b.Provider.Script(k, provider.Rule{Outcome: provider.Paid})
		}
	}
	return labWorker{w: w}, nil
}

// labWorker is the lab's own Day 16 worker (core/worker), run in process
// on the run's database, on a clock of its own set to the run's time at
// every step.
type labWorker struct {
	w *worker.Worker
}

func (l labWorker) Step(ctx context.Context, now time.Time) (sched.LabStep, error) {
	l.w.Clock = clock.NewAt(now)
	res, err := l.w.Step(ctx)
	if err != nil {
		return sched.LabStep{}, err
	}
	step := sched.LabStep{Idle: res.Idle, Claimed: res.Claimed > 0, Wake: l.w.Clock.Now()}
	for _, e := range res.Events {
		step.Events = append(step.Events, fmt.Sprintf("%s %s (attempt %d)", e.Kind, e.Key, e.Attempt))
	}
	return step, nil
}
