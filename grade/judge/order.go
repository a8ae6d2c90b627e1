package judge

import (
	"fmt"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/sched"
)

// The claim's order (docs/grade-protocol.md section 7.1, step 1): a claim
// takes the claimable messages oldest CreatedAtUtc first (then Id), and a
// worker sleeps only when nothing is claimable. The queue is replayed from
// the change log, so each claim is judged against the rows as they stood
// when it was made.

// msgState is one message as it stood: column → value, nil for NULL.
type msgState map[string]*string

func (s msgState) get(col string) (string, bool) {
	if v := s[col]; v != nil {
		return *v, true
	}
	return "", false
}

// claimable reports whether the message could be claimed at now (text).
func (s msgState) claimable(now string) bool {
	status, _ := s.get("status")
	lease, leased := s.get("lockeduntilutc")
	gate, gated := s.get("nextattemptutc")
	open := !gated || gate <= now
	return open && (status == "Pending" || status == "Processing" && leased && lease < now)
}

// older orders two messages as the claim must: CreatedAtUtc, then Id.
func (s msgState) older(t msgState) bool {
	a, _ := s.get("createdatutc")
	b, _ := t.get("createdatutc")
	if a != b {
		return a < b
	}
	return atoiText(s["id"]) < atoiText(t["id"])
}

func atoiText(p *string) int {
	n := 0
	if p != nil {
		fmt.Sscan(*p, &n)
	}
	return n
}

// stateOf is a change's new row as a msgState.
func stateOf(values map[string]string, nulls map[string]bool) msgState {
	s := msgState{}
	for col, v := range values {
		if !nulls[col] {
			s[col] = &v
		}
	}
	return s
}

// queue is the outbox replayed: every message as it stood before the
// change being judged.
type queue map[int64]msgState

// startQueue is the outbox before any worker ran: each message's first
// change's old row, or its row as the run left it when nothing changed it.
func (j *Judge) startQueue() queue {
	q := queue{}
	for _, c := range j.MessageChanges() {
		if _, seen := q[c.RowID]; !seen {
			q[c.RowID] = stateOf(c.Old, c.OldNull)
		}
	}
	for _, m := range j.Messages {
		id := int64(m.Int("Id"))
		if _, seen := q[id]; !seen {
			s := msgState{}
			for col, v := range m {
				if v.Valid {
					s[col] = &v.String
				}
			}
			q[id] = s
		}
	}
	return q
}

// claimableAt are the ids of the messages claimable at now, oldest first.
func (q queue) claimableAt(now string) []int64 {
	var ids []int64
	for id, s := range q {
		if s.claimable(now) {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b int64) int {
		switch {
		case q[a].older(q[b]):
			return -1
		case q[b].older(q[a]):
			return 1
		}
		return 0
	})
	return ids
}

// isTake reports whether a message change takes the message from the queue:
// a claim, or a dead letter at claim time (the row was claimable, not a
// record under a live lease).
func isTake(c changelog.Change, before msgState, now string) bool {
	if sched.IsClaim(c) {
		return true
	}
	status, _ := c.NewValue("Status")
	return status == "DeadLettered" && c.Changed("Status") && before != nil && before.claimable(now)
}

// ClaimOrder judges every claim against the queue as it stood: no message
// older than one it took was left claimable, and no worker called sleep
// while a message was claimable at its turn's now.
func (j *Judge) ClaimOrder() {
	q := j.startQueue()
	var problems []string
	claims, sleeps := 0, 0
	sleptAt := j.sleepTurns()
	changes := j.MessageChanges()
	turn := -1
	check := func(upTo int) { // the sleeps of the turns before upTo
		for ; turn < upTo; turn++ {
			if turn < 0 || !sleptAt[turn] {
				continue
			}
			sleeps++
			now := clock.ISO(j.Run.Turns[turn].At)
			if ids := q.claimableAt(now); len(ids) > 0 {
				problems = append(problems, fmt.Sprintf("%s slept at %s while message %d was claimable",
					j.Run.Turns[turn].Worker, clock.Stamp(j.Run.Turns[turn].At), ids[0]))
			}
		}
	}
	for i := 0; i < len(changes); {
		c := changes[i]
		at, ok := j.TurnAt(c)
		if !ok {
			q[c.RowID] = stateOf(c.New, c.NewNull)
			i++
			continue
		}
		check(c.Turn)
		now := clock.ISO(at)
		if !isTake(c, q[c.RowID], now) {
			q[c.RowID] = stateOf(c.New, c.NewNull)
			i++
			continue
		}
		// One claim: the takes that follow each other in this turn.
		open := q.claimableAt(now)
		var took []int64
		for ; i < len(changes) && changes[i].Turn == c.Turn && isTake(changes[i], q[changes[i].RowID], now); i++ {
			took = append(took, changes[i].RowID)
			q[changes[i].RowID] = stateOf(changes[i].New, changes[i].NewNull)
		}
		claims++
		if p := orderProblem(open, took, j.TurnWorker(c), at); p != "" {
			problems = append(problems, p)
		}
	}
	check(len(j.Run.Turns))
	j.AddExercised("claims take the oldest claimable messages first; no worker sleeps while one is claimable",
		claims > 0, "no claim happened", problems,
		fmt.Sprintf("%s, each oldest first; %s, none with a message claimable",
			report.Plural(claims, "claim"), report.Plural(sleeps, "sleep")))
}

// orderProblem: a message older than one the claim took, claimable and not
// taken.
func orderProblem(open, took []int64, who string, at time.Time) string {
	for _, id := range open {
		if slices.Contains(took, id) {
			continue
		}
		for _, t := range took {
			if slices.Index(open, t) > slices.Index(open, id) {
				return fmt.Sprintf("%s claimed message %d at %s, leaving the older message %d claimable",
					who, t, clock.Stamp(at), id)
			}
		}
		return ""
	}
	return ""
}

// sleepTurns are the turns a worker ended with a sleep call: the turn
// before the one its sleep's answer began.
func (j *Judge) sleepTurns() map[int]bool {
	out := map[int]bool{}
	last := map[string]int{} // worker and incarnation → its last turn
	for i, t := range j.Run.Turns {
		k := fmt.Sprintf("%s/%d", t.Worker, t.Inc)
		if prev, ok := last[k]; ok && t.Call == "sleep" {
			out[prev] = true
		}
		last[k] = i
	}
	return out
}
