package sched

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"outboxlab/core/clock"
	"outboxlab/grade/labserver"
)

// The hosted worker's calls (docs/grade-protocol.md section 5.1, Day 18):
// a handler that takes scenario time and returns early when asked to (to
// renew a lease) or when a drain is announced; a wait for new work that
// returns when the lab inserts some, at a time asked for, or at a drain;
// and the lab's own acts on the scenario clock: new work inserted, a drain
// announced in every answer the drained worker gets, a hard kill at its
// deadline.

// Hosting is what a Day of hosted workers adds to a run.
type Hosting struct {
	// Handler is how long the handler of the n-th claim of the message with
	// key takes (scenario time).
	Handler func(key string, n int) time.Duration
	// Inserts are the lab's new work, in time order.
	Inserts []Insert
	// DrainKey: once the first handler of this key has run DrainAfter, its
	// worker is drained (a rolling deploy) and, once it has exited, started
	// again; Grace is every drain's deadline after its announcement.
	DrainKey          string
	DrainAfter, Grace time.Duration
	// Shutdown drains every worker (none started again).
	Shutdown time.Time
}

// Insert is new work the lab inserts at At: Do writes it and says what it was.
type Insert struct {
	At time.Time
	Do func(ctx context.Context, now time.Time) (string, error)
}

// Handler is one handler a worker ran for a claim, as the lab timed it.
type Handler struct {
	Worker    string
	Inc       int
	MessageID int64
	Key       string
	Claim     int       // the message's n-th claim
	Start     time.Time // its first handler call
	End       time.Time // when it finishes (or finished)
	Finished  bool      // the worker got its answer finished
}

// Drain is a drain the lab announced to a worker.
type Drain struct {
	Worker   string
	Inc      int
	At       time.Time
	Deadline time.Time
	Killed   bool // still running at its deadline: killed
	Exited   time.Time
	Shutdown bool // the run's final drain (no restart)
	Turn     int  // the turns before it: a turn with a lower index came before it
}

// Death is a kill of a worker by the lab.
type Death struct {
	Worker string
	Inc    int
	At     time.Time
	Turn   int // the turns before it
}

// never is a wait's wake time when it asked for none: only new work or a
// drain ends it.
var never = clock.Start.Add(100 * 365 * 24 * time.Hour)

// hostedCall takes a wait or a handler call of w as it comes in: when it
// may be answered. A handler for a message w does not hold is refused.
func (r *Run) hostedCall(w *Worker, c *labserver.Call) (refusal string) {
	now := r.cfg.Clock.Now()
	switch c.Name {
	case "wait":
		w.wake = never
		if !c.Until.IsZero() {
			w.wake = c.Until
		}
		w.woken = ""
	case "handler":
		h, msg := r.handlerOf(w, c, now)
		if msg != "" {
			return msg
		}
		w.wake = h.End
		if !c.Until.IsZero() && c.Until.Before(h.End) {
			w.wake = c.Until
		}
	}
	if !w.drainBy.IsZero() && (c.Name == "wait" || c.Name == "handler") {
		w.wake, w.woken = now, "drain"
	}
	return ""
}

// handlerOf is the handler w runs for the message of c: started at its
// first call under this claim.
func (r *Run) handlerOf(w *Worker, c *labserver.Call, now time.Time) (*Handler, string) {
	id, key := *c.Req.MessageID, c.Req.PaymentKey
	if owner, ok := r.owns(w, id, key); !ok {
		r.Violate(RuleOwned, "%s ran a handler for message %d (%s) while %s", w.ID, id, key, owner)
		return nil, fmt.Sprintf("message %d is not yours: %s", id, owner)
	}
	n := r.claimsOf(id)
	for i := range r.Handlers {
		h := &r.Handlers[i]
		if h.Worker == w.ID && h.Inc == w.inc.N && h.MessageID == id && h.Claim == n {
			return h, ""
		}
	}
	h := Handler{Worker: w.ID, Inc: w.inc.N, MessageID: id, Key: key, Claim: n, Start: now,
		End: now.Add(r.cfg.Hosting.Handler(key, n))}
	r.Handlers = append(r.Handlers, h)
	hs := r.cfg.Hosting
	if key == hs.DrainKey && n == 1 && !r.drainPlanned {
		r.drainPlanned, r.drainAt, r.drainWho = true, now.Add(hs.DrainAfter), w
	}
	r.Log(w.ID, "handler for %s (message %d) starts: it takes %s", key, id, clock.Millis(h.End.Sub(now)))
	return &r.Handlers[len(r.Handlers)-1], ""
}

// claimsOf is how many times message id has been claimed so far.
func (r *Run) claimsOf(id int64) int {
	n := 0
	for _, c := range r.Changes {
		if c.Table == "OutboxMessages" && c.RowID == id && IsClaim(c) {
			n++
		}
	}
	return n
}

// hostedAnswer is the answer to w's wait or handler call at now.
func (r *Run) hostedAnswer(w *Worker, c *labserver.Call, now time.Time) labserver.Answer {
	if c.Name == "wait" {
		why := w.woken
		if why == "" {
			why = "time"
		}
		r.Log(w.ID, "wait ends (%s)", why)
		return labserver.Answer{Status: http.StatusOK, Body: map[string]any{"woken": why}}
	}
	h, _ := r.handlerOf(w, c, now)
	left := max(h.End.Sub(now), 0)
	if left == 0 {
		h.Finished = true
		r.Log(w.ID, "handler for %s finished", h.Key)
	} else {
		r.Log(w.ID, "handler for %s returns early, %s left", h.Key, clock.Millis(left))
	}
	return labserver.Answer{Status: http.StatusOK, Body: map[string]any{
		"finished": left == 0, "remaining_ms": left.Milliseconds()}}
}

// drainNote adds a drain to an answer of a drained worker.
func (w *Worker) drainNote(a *labserver.Answer) {
	if w.drainBy.IsZero() {
		return
	}
	a.Body["drain"] = true
	a.Body["drain_deadline_ms"] = w.drainBy.UnixMilli()
}

// nextHosted is the time of the lab's next act (false: none left).
func (r *Run) nextHosted() (time.Time, bool) {
	hs := r.cfg.Hosting
	if hs == nil {
		return time.Time{}, false
	}
	var at time.Time
	consider := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	if r.inserted < len(hs.Inserts) {
		consider(hs.Inserts[r.inserted].At)
	}
	if r.drainPlanned && !r.drained {
		consider(r.drainAt)
	}
	if !r.shutdown && !hs.Shutdown.IsZero() {
		consider(hs.Shutdown)
	}
	for _, w := range r.Workers {
		if w.state != exited && !w.drainBy.IsZero() {
			consider(w.drainBy)
		}
	}
	return at, !at.IsZero()
}

// hosted does the lab's acts due at now: inserts, drains, kills at a
// drain's deadline.
func (r *Run) hosted() error {
	hs := r.cfg.Hosting
	if hs == nil {
		return nil
	}
	now := r.cfg.Clock.Now()
	for r.inserted < len(hs.Inserts) && !hs.Inserts[r.inserted].At.After(now) {
		if err := r.insert(hs.Inserts[r.inserted], now); err != nil {
			return err
		}
		r.inserted++
	}
	if r.drainPlanned && !r.drained && !r.drainAt.After(now) {
		r.drained = true
		if r.drainWho.state != exited {
			r.announceDrain(r.drainWho, now, false)
		}
	}
	if !r.shutdown && !hs.Shutdown.IsZero() && !hs.Shutdown.After(now) {
		r.shutdown = true
		for _, w := range r.Workers {
			if w.state != exited && w.drainBy.IsZero() {
				r.announceDrain(w, now, true)
			}
		}
	}
	for _, w := range r.Workers {
		if w.state != exited && !w.drainBy.IsZero() && !w.drainBy.After(now) {
			r.Log(w.ID, "killed (SIGKILL to its process group): still running at its drain deadline")
			r.Drains[w.drainIdx].Killed = true
			r.Deaths = append(r.Deaths, Death{Worker: w.ID, Inc: w.inc.N, At: now, Turn: len(r.Turns)})
			r.Kills++
			w.call = nil
			r.stop(w)
		}
	}
	return nil
}

// insert has the lab insert new work; every wait returns.
func (r *Run) insert(in Insert, now time.Time) error {
	what, err := in.Do(r.ctx, now)
	if err != nil {
		return fmt.Errorf("the lab's new work: %w", err)
	}
	r.Acts = append(r.Acts, now)
	r.Turns = append(r.Turns, Turn{Worker: LabID, Inc: 1, At: now, Call: "insert"})
	idx := len(r.Turns) - 1
	r.Log(LabID, "%s", what)
	for _, c := range r.read("after the lab's insert at " + clock.DayStamp(now)) {
		c.Turn = idx
		r.Changes = append(r.Changes, c)
	}
	for _, w := range r.Workers {
		if w.state == blocked && w.call != nil && w.call.Name == "wait" && w.wake.After(now) {
			w.wake, w.woken = now, "work"
		}
	}
	return nil
}

// announceDrain announces a drain to w: its wait or handler returns at once, and
// every answer it gets from now on carries the deadline.
func (r *Run) announceDrain(w *Worker, now time.Time, shutdown bool) {
	w.drainBy = now.Add(r.cfg.Hosting.Grace)
	w.drainIdx = len(r.Drains)
	r.Drains = append(r.Drains, Drain{Worker: w.ID, Inc: w.inc.N, At: now, Deadline: w.drainBy, Shutdown: shutdown,
		Turn: len(r.Turns)})
	w.restartAfterDrain = !shutdown
	what := "drained (a deploy: it is started again once it exits)"
	if shutdown {
		what = "drained (the run's shutdown)"
	}
	r.Log(w.ID, "%s; deadline %s", what, clock.DayStamp(w.drainBy))
	if w.state == blocked && w.call != nil && (w.call.Name == "wait" || w.call.Name == "handler") && w.held == nil {
		w.wake, w.woken = now, "drain"
	}
}

// drainedExit notes a drained worker's exit and starts it again after a
// deploy's drain.
func (r *Run) drainedExit(w *Worker) error {
	if w.drainBy.IsZero() {
		return nil
	}
	r.Drains[w.drainIdx].Exited = r.cfg.Clock.Now()
	w.drainBy = time.Time{}
	if !w.restartAfterDrain {
		return nil
	}
	w.restartAfterDrain, w.Done = false, false
	if err := r.launch(w); err != nil {
		return err
	}
	r.Log(w.ID, "started again as incarnation %d (the deploy's new version)", w.inc.N)
	return nil
}

// stuck ends a run whose workers all wait for work that will never come.
func (r *Run) stuck(first *Worker) bool {
	if first.wake != never {
		return false
	}
	r.Violate(RuleLimits, "every worker waits for new work and the lab has none left to give")
	r.Log(first.ID, "waits for work that never comes: the run stops")
	r.Ended = "every worker waiting for nothing"
	return true
}

// LabID is the lab's own turns in a hosted run (its inserts).
const LabID = "lab"
