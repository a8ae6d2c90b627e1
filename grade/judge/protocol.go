package judge

import (
	"fmt"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/sched"
)

// Protocol adds the protocol: checks every Day has (docs/grade-protocol.md
// section 6).
func (j *Judge) Protocol() {
	r := j.Run
	var helloes int
	for _, t := range r.Turns {
		if t.Call == "hello" {
			helloes++
		}
	}
	j.AddExercised("protocol: hello is the first call",
		helloes >= len(r.Workers), "a worker never said hello",
		r.Violations[sched.RuleHelloFirst],
		fmt.Sprintf("%s, each first", report.Plural(helloes, "hello")))

	var overlap, malformed []string
	for _, status := range []int{400, 401, 404, 409} {
		for _, msg := range r.Refused(status) {
			if status == 409 && strings.Contains(msg, "outstanding") {
				overlap = append(overlap, msg)
			} else if status != 409 {
				malformed = append(malformed, fmt.Sprintf("%d %s", status, msg))
			}
		}
	}
	j.AddExercised("protocol: one call at a time", r.Calls > 0, "no call was made", overlap,
		fmt.Sprintf("%s, never two at once", report.Plural(r.Calls, "call")))
	j.AddExercised("protocol: every call well-formed and authorised", r.Calls > 0, "no call was made",
		malformed, "no 400, 401 or 404")
	j.AddExercised("protocol: no database transaction open across a lab call", r.Calls > 0,
		"no call was made", r.Violations[sched.RuleNoTx], "checked at every call")
	j.AddExercised("protocol: every row change in its worker's own turn", len(r.Changes) > 0,
		"no row changed", r.Violations[sched.RuleOwnTurn],
		fmt.Sprintf("%s, each in a turn", report.Plural(len(r.Changes), "row change")))
	schema := "as the lab made them"
	if v := r.Violations[sched.RuleSchema]; len(v) > 0 {
		schema = firstOf(v)
	}
	j.Add("protocol: Lab tables, triggers and the Day's tables intact", len(r.Violations[sched.RuleSchema]) == 0, schema)
	j.record()
	j.timestamps()
	j.doneWithinLimits()
	var provCalls int
	for _, c := range j.Calls {
		if c.Op == provider.OpStatusCheck {
			provCalls++
		}
	}
	j.AddExercised("protocol: provider asked only about messages the worker owned", provCalls > 0,
		"no provider call was made", r.Violations[sched.RuleOwned],
		fmt.Sprintf("%s, each owned", report.Plural(provCalls, "status check")))
}

// doneWithinLimits: the workers said done and exited 0 within the run's limits.
func (j *Judge) doneWithinLimits() {
	r := j.Run
	var done int
	for _, w := range r.Workers {
		if w.Done {
			done++
		}
	}
	limits := r.Violations[sched.RuleLimits]
	if r.Ended != "" && len(limits) == 0 {
		limits = []string{"the run stopped at " + r.Ended}
	}
	j.AddExercised("protocol: done and exit 0 within the run's limits", done > 0, "no worker said done",
		limits, fmt.Sprintf("%d of %d workers said done and exited 0", done, len(r.Workers)))
}

// timeColumns are the columns that hold a time.
var timeColumns = map[string]map[string]bool{
	"OutboxMessages": {"nextattemptutc": true, "lockeduntilutc": true, "processedatutc": true,
		"deadletteredatutc": true, "createdatutc": true},
	"Payments": {"updatedatutc": true, "createdatutc": true},
}

// timestamps checks every time a worker wrote: the lab's text, equal to the
// turn's now (or now + lease for a lease; a NextAttemptUtc is judged by the
// backoff check).
func (j *Judge) timestamps() {
	var problems []string
	written := 0
	for c, at := range j.TurnUpdates() {
		for col := range timeColumns[c.Table] {
			v, set := c.NewValue(col)
			if !set || !c.Changed(col) {
				continue
			}
			written++
			if _, ok := changelog.ParseISO(v); !ok {
				problems = append(problems, fmt.Sprintf("%s %d %s = %q, not like 2026-01-16T09:00:00.201Z",
					c.Table, c.RowID, col, changelog.Clip(v, 32)))
				continue
			}
			want := clock.ISO(at)
			switch col {
			case "nextattemptutc":
				continue
			case "lockeduntilutc":
				if j.Renewals && !sched.IsClaim(c) {
					continue
				}
				want = clock.ISO(at.Add(j.Lease))
			case "createdatutc":
				want = "(unchanged)"
			}
			if v != want {
				problems = append(problems, fmt.Sprintf("%s %d %s = %s at %s, want %s",
					c.Table, c.RowID, col, v, clock.Stamp(at), want))
			}
		}
	}
	j.AddExercised("protocol: every timestamp written is the lab's clock, in its text", written > 0,
		"no time was written", problems, fmt.Sprintf("%s, each the lab's", report.Plural(written, "time")))
}
