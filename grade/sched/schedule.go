package sched

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/grade/changelog"
	"outboxlab/grade/labserver"
	"outboxlab/grade/workerproc"
)

// The scheduler: one worker runs at a time. The loop waits for the running
// worker's next call (or its turn's wall-clock budget), and between turns
// schedule picks who runs next and answer gives it the turn.

// Execute drives the workers until every one has finished or a limit stops
// the run. The database is seeded and the change log installed already.
func (r *Run) Execute() (err error) {
	if err := r.watch(); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			r.guard.Close()
		}
	}()
	if r.probe, err = r.cfg.Database.OpenTxProbe(r.ctx, r.cfg.DB); err != nil {
		return err
	}
	defer r.probe.Close()
	r.calls = make(chan *labserver.Call)
	r.over = make(chan struct{})
	srv, err := labserver.New(r.calls, r.over)
	if err != nil {
		return err
	}
	r.srv = srv
	defer func() {
		close(r.over)
		for _, w := range r.Workers {
			r.stop(w)
		}
		srv.Close()
	}()
	for i := 1; i <= r.cfg.Workers; i++ {
		w := &Worker{ID: "worker-" + strconv.Itoa(i), n: i, Out: workerproc.NewRing(16 << 10)}
		r.Workers = append(r.Workers, w)
		if err := r.launch(w); err != nil {
			return err
		}
	}
	return r.loop()
}

// Finish reads what the workers changed after their last call (their own
// too) and finds a schema that is no longer the one they were given.
func (r *Run) Finish() {
	r.unwatch()
	if shape, err := changelog.Shape(r.ctx, r.cfg.DB, r.cfg.Database.Dialect()); err != nil || shape != r.cfg.Shape {
		r.Violate(RuleSchema, "%s", changelog.ShapeDiff(r.cfg.Shape, shape, err))
	}
}

// loop is the scheduler: it waits while a worker runs (or starts), and
// between turns chooses who runs next.
func (r *Run) loop() error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for r.Ended == "" {
		if !slices.ContainsFunc(r.Workers, (*Worker).live) {
			return nil
		}
		if r.holder == nil && !slices.ContainsFunc(r.Workers, func(w *Worker) bool { return w.state == starting }) {
			if err := r.schedule(); err != nil {
				return err
			}
			continue
		}
		timer.Reset(time.Until(r.nextDeadline()))
		select {
		case c := <-r.calls:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			if err := r.receive(c); err != nil {
				return err
			}
		case <-timer.C:
			r.overBudget()
		case <-r.ctx.Done():
			return r.ctx.Err()
		}
	}
	return nil
}

// nextDeadline is the earliest wall-clock deadline of a running or starting worker.
func (r *Run) nextDeadline() time.Time {
	var d time.Time
	for _, w := range r.Workers {
		if (w.state == running || w.state == starting) && (d.IsZero() || w.deadline.Before(d)) {
			d = w.deadline
		}
	}
	if d.IsZero() {
		d = time.Now().Add(time.Hour)
	}
	return d
}

// overBudget kills the workers past their turn's wall-clock budget and ends
// the run: it is judged as it stands.
func (r *Run) overBudget() {
	now := time.Now()
	for _, w := range r.Workers {
		if (w.state == running || w.state == starting) && !now.Before(w.deadline) {
			what := "its turn"
			if w.state == starting {
				what = "its start (no hello)"
			} else if w.Done {
				what = "exiting after done"
			}
			r.boundary(w)
			budget := r.cfg.TurnBudget
			if w.state == starting {
				budget = r.startBudget()
			}
			r.Violate(RuleLimits, "%s took more than %s of wall time for %s: killed",
				w.ID, budget, what)
			r.Log(w.ID, "killed: over the turn budget (%s)", what)
			r.stop(w)
			r.Ended = w.ID + " went over the turn budget"
			r.OverBudget = true
		}
	}
}

// receive handles a call (or an exit) from a worker.
func (r *Run) receive(c *labserver.Call) error {
	w := r.Workers[c.Owner.Worker]
	if c.Owner != w.inc || w.state == exited {
		if c.Name != "exit" {
			c.Reply <- labserver.Gone()
		}
		return nil // a killed incarnation's last word
	}
	if c.Name == "exit" {
		r.exited(w)
		return r.drainedExit(w)
	}
	r.boundary(w)
	switch {
	case w.state == blocked:
		// The handler refuses a second outstanding call; this cannot happen.
		c.Reply <- labserver.Answer{Status: http.StatusConflict,
			Body: labserver.Timed(map[string]any{"error": "a call is outstanding"}, r.cfg.Clock.Now())}
		return nil
	case !w.helloed && c.Name != "hello":
		r.Violate(RuleHelloFirst, "%s called %s before hello", w.ID, c.Name)
		r.refuse(w, c, http.StatusConflict, "call hello first")
		return nil
	case w.helloed && c.Name == "hello":
		r.Violate(RuleHelloFirst, "%s said hello twice", w.ID)
		r.refuse(w, c, http.StatusConflict, "hello is the first call, once")
		return nil
	case w.Done:
		r.Violate(RuleLimits, "%s called %s after done", w.ID, c.Name)
		r.refuse(w, c, http.StatusConflict, "the worker said done")
		return nil
	}
	var wake time.Time
	if c.Name == "wait" || c.Name == "handler" {
		if msg := r.hostedCall(w, c); msg != "" {
			r.refuse(w, c, http.StatusConflict, msg)
			return nil
		}
		wake = w.wake
	}
	w.state, w.call, r.holder = blocked, c, nil
	w.wake = wake
	switch c.Name {
	case "sleep":
		w.wake = c.Until
	case "hello":
		w.wake, w.helloAt = w.helloAt, time.Time{}
	}
	return nil
}

// refuse answers a call at once with an error; the worker keeps its turn.
func (r *Run) refuse(w *Worker, c *labserver.Call, status int, msg string) {
	r.srv.NoteRefusal(status, w.ID, msg)
	c.Reply <- labserver.Answer{Status: status, Body: labserver.Timed(map[string]any{"error": msg}, r.cfg.Clock.Now())}
	if w.state == running {
		w.deadline = time.Now().Add(r.cfg.TurnBudget)
	}
}

// schedule chooses the next worker to run among those whose call can be
// answered now (seeded PRNG); when every live worker sleeps it moves the
// clock to the earliest wake time (ties: the lowest worker id).
func (r *Run) schedule() error {
	if err := r.hosted(); err != nil || r.holder != nil {
		return err
	}
	now := r.cfg.Clock.Now()
	var ready []*Worker
	for _, w := range r.Workers {
		if w.state == blocked && !w.wake.After(now) {
			ready = append(ready, w)
		}
	}
	if len(ready) == 0 {
		var first *Worker
		for _, w := range r.Workers {
			if w.state == blocked && (first == nil || w.wake.Before(first.wake)) {
				first = w
			}
		}
		if first == nil {
			return errors.New("no worker can run") // cannot happen: the loop checked
		}
		if t, ok := r.nextHosted(); ok && !t.After(first.wake) {
			r.cfg.Clock.AdvanceTo(t)
			return nil // the loop schedules again, after the lab's act
		}
		if r.cfg.Hosting != nil && r.stuck(first) {
			return nil
		}
		if r.cfg.LabWorker != nil {
			wake, err := r.drain()
			if err != nil {
				return err
			}
			if !wake.IsZero() && !wake.After(first.wake) && wake.Sub(clock.Start) <= clockLimit {
				r.cfg.Clock.AdvanceTo(wake)
				return nil // the loop schedules again at the new time
			}
		}
		if first.wake.Sub(clock.Start) > clockLimit {
			r.Violate(RuleLimits, "%s slept past the scenario clock's limit (%s)", first.ID, clock.ISO(first.wake))
			r.Log(first.ID, "sleeps until %s: past the clock's limit, the run stops", clock.DayStamp(first.wake))
			r.Ended = "the scenario clock's limit"
			return nil
		}
		r.cfg.Clock.AdvanceTo(first.wake)
		ready = []*Worker{first}
	}
	w := ready[0]
	if len(ready) > 1 {
		w = ready[r.cfg.Rand.IntN(len(ready))]
	}
	return r.answer(w)
}

// answer answers w's outstanding call and gives w the turn.
func (r *Run) answer(w *Worker) error {
	c := w.call
	now := r.cfg.Clock.Now()
	r.Calls++
	if r.cfg.OnCall != nil {
		r.cfg.OnCall()
	}
	if r.Calls > maxCalls {
		r.Violate(RuleLimits, "more than %d lab calls", maxCalls)
		r.Ended = fmt.Sprintf("%d lab calls", maxCalls)
		return nil
	}
	var a labserver.Answer
	switch {
	case w.held != nil && w.late:
		a = *w.held
		r.LateTurn = len(r.Turns)
		r.Log(w.ID, "gets its held status answer, past its lease")
	case w.held != nil:
		a = *w.held
		r.Log(w.ID, "gets its status answer")
	case c.Name == "hello":
		w.helloed = true
		a = labserver.Answer{Status: http.StatusOK, Body: map[string]any{
			"protocol": labserver.ProtocolVersion, "worker_id": w.ID, "incarnation": w.inc.N}}
		r.Log(w.ID, "hello (incarnation %d)", w.inc.N)
	case c.Name == "now":
		a = labserver.Answer{Status: http.StatusOK}
		r.Log(w.ID, "clock now")
	case c.Name == "sleep":
		a = labserver.Answer{Status: http.StatusOK}
		r.Log(w.ID, "slept until %s", clock.DayStamp(c.Until))
	case c.Name == "status" || c.Name == "charge":
		var stop bool
		var err error
		if a, stop, err = r.provider(w, c); err != nil || stop {
			return err
		}
	case c.Name == "wait" || c.Name == "handler":
		a = r.hostedAnswer(w, c, now)
	case c.Name == "done":
		w.Done = true
		a = labserver.Answer{Status: http.StatusOK, Body: map[string]any{"ok": true}}
		r.Log(w.ID, "done")
	}
	r.between()
	w.call, w.held, w.wake, w.late = nil, nil, time.Time{}, false
	w.state, r.holder = running, w
	w.deadline = time.Now().Add(r.cfg.TurnBudget)
	r.Turns = append(r.Turns, Turn{Worker: w.ID, Inc: w.inc.N, At: now, Call: c.Name})
	a.Body = labserver.Timed(a.Body, now)
	w.drainNote(&a)
	w.woken = ""
	c.Reply <- a
	return nil
}
