package judge

import (
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/sched"
)

// The checks of the lab's faults at a provider call (docs/grade-protocol.md
// sections 1 and 7): a kill with the answer in flight, a stall past the
// lease. Day 15 has both in every run, Day 16 in its variations.

// ClaimsOf lists the claims of the message with key, in order.
func (j *Judge) ClaimsOf(key string) []changelog.Change {
	var out []changelog.Change
	for _, c := range j.MessageChanges() {
		if k, _ := c.NewValue("MessageKey"); k == key && sched.IsClaim(c) {
			out = append(out, c)
		}
	}
	return out
}

// KilledTakenOver: the message whose answer died with its worker (the
// fault named "kill", at key) was claimed again only after its lease, and
// then settled.
func (j *Judge) KilledTakenOver(key string) {
	var problems []string
	claims := j.ClaimsOf(key)
	if m := j.Message(key); m != nil && m.Get("Status") != "Processed" {
		problems = append(problems, fmt.Sprintf("%s is %s", key, m.Get("Status")))
	}
	if len(claims) >= 2 {
		first, _ := claims[0].NewValue("LockedUntilUtc")
		at, _ := j.TurnAt(claims[1])
		if clock.ISO(at) <= first {
			problems = append(problems, fmt.Sprintf("%s taken over at %s, inside the killed claim's lease (to %s)",
				key, clock.Stamp(at), first))
		}
	}
	j.AddExercised("the killed worker's message taken over after its lease, then Processed",
		key != "" && j.Run.Fired["kill"] && len(claims) >= 2, "no kill, or nobody claimed the message again",
		problems, fmt.Sprintf("%s: claimed %s", key, report.Plural(len(claims), "time")))
}

// LateRefused: once the stalled worker got its held answer (key's), it
// changed neither the message nor its payment; the row keeps the new
// owner's token.
func (j *Judge) LateRefused(key string) {
	r := j.Run
	var problems []string
	claims := j.ClaimsOf(key)
	exercised := key != "" && r.Stalled != "" && r.LateTurn >= 0 && len(claims) >= 2
	if exercised {
		last := claims[len(claims)-1]
		owner, _ := last.NewValue("LockedBy")
		if owner == r.Stalled && last.Turn < r.LateTurn {
			problems = append(problems, key+" was never taken over from the stalled worker")
		}
		for _, c := range r.Changes {
			if c.Turn < r.LateTurn || j.TurnWorker(c) != r.Stalled {
				continue
			}
			if c.New["messagekey"]+c.New["paymentkey"] == key {
				problems = append(problems, fmt.Sprintf("the stalled %s's late write to %s %d was accepted (%s)",
					r.Stalled, c.Table, c.RowID, changelog.Describe(c)))
			}
		}
		if m := j.Message(key); m != nil && m.Get("ClaimToken") != last.New["claimtoken"] {
			problems = append(problems, fmt.Sprintf("%s ClaimToken %s, want the new owner's %s", key,
				m.Get("ClaimToken"), last.New["claimtoken"]))
		}
	}
	j.AddExercised("the stalled worker's late completion refused by the owner and token check", exercised,
		"no stall, no takeover or no late answer", problems,
		fmt.Sprintf("%s: taken over, the late record changed nothing", key))
}
