package day18

import (
	"time"

	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
)

// What the checks read, rebuilt from the change log and the lab's own
// ledger (its turns, handlers, drains and kills), never from the worker.

// claim is one claim of a message, with everything its holder did under it.
type claim struct {
	id       int64
	key      string
	n        int // the message's n-th claim
	worker   string
	inc      int
	at       time.Time
	turn     int // the turn it happened in
	token    string
	lease    string             // LockedUntilUtc as the claim wrote it
	renewals []changelog.Change // the holder's renewals under it, in order
	// ended is the holder's change that moved the message out of
	// Processing under this claim (nil: none).
	ended   *changelog.Change
	endedAt time.Time
}

// inc is a worker's incarnation.
type inc struct {
	worker string
	n      int
}

// claims rebuilds every claim from the change log, in order.
func claims(j *judge.Judge) []*claim {
	var out []*claim
	last := map[int64]*claim{}
	count := map[int64]int{}
	for _, c := range j.MessageChanges() {
		at, ok := j.TurnAt(c)
		if !ok {
			continue
		}
		t := j.Run.Turns[c.Turn]
		if sched.IsClaim(c) {
			count[c.RowID]++
			key, _ := c.NewValue("MessageKey")
			lease, _ := c.NewValue("LockedUntilUtc")
			cl := &claim{id: c.RowID, key: key, n: count[c.RowID], worker: t.Worker, inc: t.Inc, at: at, turn: c.Turn,
				token: c.New["claimtoken"], lease: lease}
			out = append(out, cl)
			last[c.RowID] = cl
			continue
		}
		cl := last[c.RowID]
		if cl == nil || cl.ended != nil || t.Worker != cl.worker || t.Inc != cl.inc || c.Old["claimtoken"] != cl.token {
			continue
		}
		status, _ := c.NewValue("Status")
		switch {
		case status == "Processing" && c.Changed("LockedUntilUtc"):
			cl.renewals = append(cl.renewals, c)
		case status != "Processing":
			cc := c
			cl.ended, cl.endedAt = &cc, at
		}
	}
	return out
}

// heldAt are the claims of (worker, incarnation) it still held when the
// lab acted before turn: its latest claim of each message made before
// that turn, not ended before it.
func heldAt(all []*claim, who inc, turn int) []*claim {
	latest := map[int64]*claim{}
	for _, cl := range all {
		if cl.turn < turn {
			latest[cl.id] = cl
		}
	}
	var out []*claim
	for _, cl := range all {
		if latest[cl.id] != cl || cl.worker != who.worker || cl.inc != who.n {
			continue
		}
		if cl.ended != nil && cl.ended.Turn < turn {
			continue
		}
		out = append(out, cl)
	}
	return out
}

// next is the claim of the same message after cl (nil: none).
func next(all []*claim, cl *claim) *claim {
	for _, c := range all {
		if c.id == cl.id && c.n == cl.n+1 {
			return c
		}
	}
	return nil
}

// gone is when incarnation who stopped: killed, or exited after a drain
// (zero: it ran to the end).
func gone(r *sched.Run, who inc) time.Time {
	var at time.Time
	for _, d := range r.Deaths {
		if d.Worker == who.worker && d.Inc == who.n {
			at = d.At
		}
	}
	for _, d := range r.Drains {
		if d.Worker == who.worker && d.Inc == who.n && !d.Exited.IsZero() && (at.IsZero() || d.Exited.Before(at)) {
			at = d.Exited
		}
	}
	return at
}

// handlerOf is the lab's record of the handler run under cl (nil: none).
func handlerOf(r *sched.Run, cl *claim) *sched.Handler {
	for i := range r.Handlers {
		h := &r.Handlers[i]
		if h.Worker == cl.worker && h.Inc == cl.inc && h.MessageID == cl.id && h.Claim == cl.n {
			return h
		}
	}
	return nil
}

// busyUntil is when cl's holder stopped working on its message: its
// handler's end, cut where the holder settled or released it, or died.
func busyUntil(r *sched.Run, cl *claim) time.Time {
	end := cl.at
	if h := handlerOf(r, cl); h != nil {
		end = h.End
	}
	if cl.ended != nil && cl.endedAt.Before(end) {
		end = cl.endedAt
	}
	if g := gone(r, inc{cl.worker, cl.inc}); !g.IsZero() && g.Before(end) {
		end = g
	}
	if n := len(r.Turns); n > 0 && r.Turns[n-1].At.Before(end) {
		end = r.Turns[n-1].At // the run stopped first
	}
	return end
}
