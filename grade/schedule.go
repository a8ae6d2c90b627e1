package grade

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"outboxlab/core/clock"
)

// The scheduler: one worker runs at a time. The loop waits for the running
// worker's next call (or its turn's wall-clock budget), and between turns
// schedule picks who runs next and answer gives it the turn.

// loop is the scheduler: it waits while a worker runs (or starts), and
// between turns chooses who runs next.
func (r *run) loop() error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for r.ended == "" {
		if !slices.ContainsFunc(r.slots, (*slot).live) {
			return nil
		}
		if r.holder == nil && !slices.ContainsFunc(r.slots, func(s *slot) bool { return s.state == starting }) {
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
func (r *run) nextDeadline() time.Time {
	var d time.Time
	for _, s := range r.slots {
		if (s.state == running || s.state == starting) && (d.IsZero() || s.deadline.Before(d)) {
			d = s.deadline
		}
	}
	if d.IsZero() {
		d = time.Now().Add(time.Hour)
	}
	return d
}

// overBudget kills the workers past their turn's wall-clock budget and ends
// the run: it is judged as it stands.
func (r *run) overBudget() {
	now := time.Now()
	for _, s := range r.slots {
		if (s.state == running || s.state == starting) && !now.Before(s.deadline) {
			what := "its turn"
			if s.state == starting {
				what = "its start (no hello)"
			} else if s.done {
				what = "exiting after done"
			}
			r.boundary(s)
			budget := r.budget
			if s.state == starting {
				budget = r.startBudget()
			}
			r.violate(ruleLimits, "%s took more than %s of wall time for %s: killed",
				s.id, budget, what)
			r.log(s.id, "killed: over the turn budget (%s)", what)
			r.stop(s)
			r.ended = s.id + " went over the turn budget"
		}
	}
}

// receive handles a call (or an exit) from a worker.
func (r *run) receive(c *call) error {
	s := c.owner.slot
	if c.owner != s.inc || s.state == exited {
		if c.name != "exit" {
			c.reply <- gone()
		}
		return nil // a killed incarnation's last word
	}
	if c.name == "exit" {
		r.exited(s)
		return nil
	}
	r.boundary(s)
	switch {
	case s.state == blocked:
		// The handler refuses a second outstanding call; this cannot happen.
		c.reply <- answer{status: http.StatusConflict, body: timed(map[string]any{"error": "a call is outstanding"}, r.clk.Now())}
		return nil
	case !s.helloed && c.name != "hello":
		r.violate(ruleHelloFirst, "%s called %s before hello", s.id, c.name)
		r.refuse(s, c, http.StatusConflict, "call hello first")
		return nil
	case s.helloed && c.name == "hello":
		r.violate(ruleHelloFirst, "%s said hello twice", s.id)
		r.refuse(s, c, http.StatusConflict, "hello is the first call, once")
		return nil
	case s.done:
		r.violate(ruleLimits, "%s called %s after done", s.id, c.name)
		r.refuse(s, c, http.StatusConflict, "the worker said done")
		return nil
	}
	s.state, s.call, r.holder = blocked, c, nil
	s.wake = time.Time{}
	if c.name == "sleep" {
		s.wake = c.until
	}
	return nil
}

// refuse answers a call at once with an error; the worker keeps its turn.
func (r *run) refuse(s *slot, c *call, status int, msg string) {
	r.srv.mu.Lock()
	r.srv.bad[status] = append(r.srv.bad[status], s.id+": "+msg)
	r.srv.mu.Unlock()
	c.reply <- answer{status: status, body: timed(map[string]any{"error": msg}, r.clk.Now())}
	if s.state == running {
		s.deadline = time.Now().Add(r.budget)
	}
}

// schedule chooses the next worker to run among those whose call can be
// answered now (seeded PRNG); when every live worker sleeps it moves the
// clock to the earliest wake time (ties: the lowest worker id).
func (r *run) schedule() error {
	now := r.clk.Now()
	var ready []*slot
	for _, s := range r.slots {
		if s.state == blocked && !s.wake.After(now) {
			ready = append(ready, s)
		}
	}
	if len(ready) == 0 {
		var first *slot
		for _, s := range r.slots {
			if s.state == blocked && (first == nil || s.wake.Before(first.wake)) {
				first = s
			}
		}
		if first == nil {
			return errors.New("no worker can run") // cannot happen: the loop checked
		}
		if r.labWorker != nil {
			wake, err := r.labWorker.drain(r)
			if err != nil {
				return err
			}
			if !wake.IsZero() && !wake.After(first.wake) && wake.Sub(clock.Start) <= clockLimit {
				r.clk.AdvanceTo(wake)
				return nil // the loop schedules again at the new time
			}
		}
		if first.wake.Sub(clock.Start) > clockLimit {
			r.violate(ruleLimits, "%s slept past the scenario clock's limit (%s)", first.id, clock.ISO(first.wake))
			r.log(first.id, "sleeps until %s: past the clock's limit, the run stops", clock.DayStamp(first.wake))
			r.ended = "the scenario clock's limit"
			return nil
		}
		r.clk.AdvanceTo(first.wake)
		ready = []*slot{first}
	}
	s := ready[0]
	if len(ready) > 1 {
		s = ready[r.rng.IntN(len(ready))]
	}
	return r.answer(s)
}

// answer answers s's outstanding call and gives s the turn.
func (r *run) answer(s *slot) error {
	c := s.call
	now := r.clk.Now()
	r.nCalls++
	if r.nCalls > maxCalls {
		r.violate(ruleLimits, "more than %d lab calls", maxCalls)
		r.ended = fmt.Sprintf("%d lab calls", maxCalls)
		return nil
	}
	var a answer
	switch {
	case s.held != nil:
		a = *s.held
		r.lateTurn = len(r.turns)
		r.log(s.id, "gets its held status answer, past its lease")
	case c.name == "hello":
		s.helloed = true
		a = answer{status: http.StatusOK, body: map[string]any{"protocol": ProtocolVersion, "worker_id": s.id, "incarnation": s.inc.n}}
		r.log(s.id, "hello (incarnation %d)", s.inc.n)
	case c.name == "now":
		a = answer{status: http.StatusOK}
		r.log(s.id, "clock now")
	case c.name == "sleep":
		a = answer{status: http.StatusOK}
		r.log(s.id, "slept until %s", clock.DayStamp(c.until))
	case c.name == "status" || c.name == "charge":
		var stop bool
		var err error
		if a, stop, err = r.provider(s, c); err != nil || stop {
			return err
		}
	case c.name == "done":
		s.done = true
		a = answer{status: http.StatusOK, body: map[string]any{"ok": true}}
		r.log(s.id, "done")
	}
	s.call, s.held, s.wake = nil, nil, time.Time{}
	s.state, r.holder = running, s
	s.deadline = time.Now().Add(r.budget)
	r.turns = append(r.turns, turn{worker: s.id, inc: s.inc.n, at: now, call: c.name})
	a.body = timed(a.body, now)
	c.reply <- a
	return nil
}
