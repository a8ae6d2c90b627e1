package day18

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
)

// The worker checks: drains, attempts, deaths, idle polling.

// drained: after a drain's announcement, its worker claims nothing, settles
// or releases every message it held (a release: Pending, the lock cleared,
// AttemptCount given back) and exits by the deadline.
func drained(j *judge.Judge, all []*claim) {
	var problems []string
	held := 0
	for _, d := range j.Run.Drains {
		who := inc{d.Worker, d.Inc}
		for _, cl := range all {
			if cl.worker == d.Worker && cl.inc == d.Inc && cl.turn >= d.Turn {
				problems = append(problems, fmt.Sprintf("%s claimed %s at %s, after its drain at %s",
					d.Worker, cl.key, clock.Stamp(cl.at), clock.Stamp(d.At)))
			}
		}
		for _, cl := range heldAt(all, who, d.Turn) {
			if lastLease(cl) < clock.ISO(d.At) {
				continue // its lease had ended: not held any more
			}
			held++
			switch {
			case cl.ended == nil || cl.endedAt.After(d.Deadline):
				problems = append(problems, fmt.Sprintf("%s held %s at its drain (%s) and neither settled nor released it "+
					"by the deadline %s", d.Worker, cl.key, clock.Stamp(d.At), clock.Stamp(d.Deadline)))
			case isRelease(*cl.ended) && cl.ended.NewInt("AttemptCount") != cl.ended.OldInt("AttemptCount")-1:
				problems = append(problems, fmt.Sprintf("%s released %s at its drain with AttemptCount %d→%d: "+
					"a drain gives the attempt back (want %d)", d.Worker, cl.key, cl.ended.OldInt("AttemptCount"),
					cl.ended.NewInt("AttemptCount"), cl.ended.OldInt("AttemptCount")-1))
			}
		}
		if d.Killed {
			problems = append(problems, fmt.Sprintf("%s was still running at its drain deadline %s: killed",
				d.Worker, clock.Stamp(d.Deadline)))
		}
	}
	j.AddExercised(checkDrain, held > 0, "no worker held a message when it was drained", problems,
		fmt.Sprintf("%s, %s held at the drain, each released or settled", report.Plural(len(j.Run.Drains), "drain"),
			report.Plural(held, "message")))
}

// isRelease reports whether c gives a Processing message back: Pending,
// its lock cleared.
func isRelease(c changelog.Change) bool {
	status, _ := c.NewValue("Status")
	old, _ := c.OldValue("Status")
	_, locked := c.NewValue("LockedBy")
	return old == "Processing" && status == "Pending" && !locked
}

// attempts: AttemptCount rises by one at every claim, falls by one only at
// a drained worker's release, and changes nowhere else.
func attempts(j *judge.Judge) {
	var problems []string
	claimed, released := 0, 0
	for _, c := range j.MessageChanges() {
		before, after := c.OldInt("AttemptCount"), c.NewInt("AttemptCount")
		switch {
		case sched.IsClaim(c):
			claimed++
			if after != before+1 {
				problems = append(problems, fmt.Sprintf("message %d claimed with AttemptCount %d→%d, want +1", c.RowID, before, after))
			}
		case isRelease(c) && after == before-1 && drainedAt(j, c):
			released++
		case c.Changed("AttemptCount"):
			status, _ := c.NewValue("Status")
			problems = append(problems, fmt.Sprintf("message %d AttemptCount %d→%d outside a claim (to %s)",
				c.RowID, before, after, status))
		}
	}
	j.AddExercised(checkAttempts, claimed > 0, "no claim happened", problems,
		fmt.Sprintf("%s +1, %s -1", report.Plural(claimed, "claim"), report.Plural(released, "drain release")))
}

// drainedAt reports whether c was made by a worker after its drain was announced.
func drainedAt(j *judge.Judge, c changelog.Change) bool {
	at, ok := j.TurnAt(c)
	t := j.Run.Turns[c.Turn]
	for _, d := range j.Run.Drains {
		if ok && d.Worker == t.Worker && d.Inc == t.Inc && !at.Before(d.At) {
			return true
		}
	}
	return false
}

// diedTakenOver: a message its worker held when it was killed is claimed
// again after its lease ended and at most one lease later.
func diedTakenOver(j *judge.Judge, all []*claim) {
	var problems []string
	died := 0
	for _, d := range j.Run.Deaths {
		for _, cl := range heldAt(all, inc{d.Worker, d.Inc}, d.Turn) {
			died++
			leaseAt, _ := changelog.ParseISO(lastLease(cl))
			nx := next(all, cl)
			switch {
			case nx == nil:
				problems = append(problems, fmt.Sprintf("%s held %s when it was killed at %s; nobody took it again "+
					"(its lease ended %s)", d.Worker, cl.key, clock.Stamp(d.At), clock.Stamp(leaseAt)))
			case nx.at.After(leaseAt.Add(j.Lease)):
				problems = append(problems, fmt.Sprintf("%s held %s when it was killed at %s; taken again only at %s, "+
					"more than one lease (%s) after its lease ended %s", d.Worker, cl.key, clock.Stamp(d.At),
					clock.Stamp(nx.at), clock.Millis(j.Lease), clock.Stamp(leaseAt)))
			}
		}
	}
	j.AddExercised(checkDied, died > 0, "no worker died holding a message", problems,
		fmt.Sprintf("%s of a dead worker, each taken again within one lease", report.Plural(died, "message")))
}

// noBusyPolling: two turns of one incarnation that each began with a wait,
// a sleep or a clock/now answer and changed no row (it looked and found
// nothing) are at least POLL_MS apart, unless something changed between
// them: a row (anyone's), new work, a drain.
func (v variation) noBusyPolling(j *judge.Judge) {
	var problems []string
	r := j.Run
	changed := map[int]bool{}
	for _, c := range r.Changes {
		changed[c.Turn] = true
	}
	lastIdle := map[inc]int{}
	idle := 0
	for i, t := range r.Turns {
		if t.Call != "wait" && t.Call != "sleep" && t.Call != "now" || changed[i] {
			continue
		}
		idle++
		who := inc{t.Worker, t.Inc}
		prev, seen := lastIdle[who]
		lastIdle[who] = i
		if !seen || t.At.Sub(r.Turns[prev].At) >= v.Poll || newsBetween(r, changed, prev, i) {
			continue
		}
		problems = append(problems, fmt.Sprintf("%s looked for work at %s and again at %s, nothing changed between: "+
			"want %s between two empty looks", t.Worker, clock.Stamp(r.Turns[prev].At), clock.Stamp(t.At), clock.Millis(v.Poll)))
	}
	j.AddExercised(checkPolling, idle > 1, "no worker looked for work twice", problems,
		fmt.Sprintf("%s, none within %s of an empty one", report.Plural(idle, "empty look"), clock.Millis(v.Poll)))
}

// newsBetween reports whether something changed between turns a and b: a
// row, new work inserted, a drain announced.
func newsBetween(r *sched.Run, changed map[int]bool, a, b int) bool {
	for i := a + 1; i < b; i++ {
		if changed[i] {
			return true
		}
	}
	from, to := r.Turns[a].At, r.Turns[b].At
	in := func(t time.Time) bool { return t.After(from) && !t.After(to) }
	for _, at := range r.Acts {
		if in(at) {
			return true
		}
	}
	for _, d := range r.Drains {
		if in(d.At) {
			return true
		}
	}
	return false
}
