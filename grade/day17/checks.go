package day17

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
)

// Day 17's own checks: the refusal, the audit row, the counters, the
// Redrives rows and the batches.

// Judge adds the checks of docs/grade-protocol.md section 7.3.
func (v variation) Judge(j *judge.Judge) {
	refused(j)
	rel := releases(j)
	v.audited(j, rel)
	v.countersKept(j, rel)
	v.redrivesRows(j, rel)
	v.batched(j, rel)
	if v.Fixed {
		verifiedBeforeClosing(j)
	} else {
		v.haltedAfterFirstBatch(j, rel)
	}
	j.Drained()
	j.NoRowLost(v.Payments)
	j.ProviderIDs()
	j.NoCharges()
}

// byRedrive reports whether c happened in a turn of the redrive process.
func byRedrive(j *judge.Judge, c changelog.Change) bool {
	w := j.TurnWorker(c)
	return w != "" && w != sched.LabWorkerID
}

// releases are the redrive's DeadLettered → Pending updates, in order.
func releases(j *judge.Judge) []changelog.Change {
	var out []changelog.Change
	for _, c := range j.MessageChanges() {
		old, _ := c.OldValue("Status")
		now, _ := c.NewValue("Status")
		if old == "DeadLettered" && now == "Pending" && byRedrive(j, c) {
			out = append(out, c)
		}
	}
	return out
}

// refused: the run without an approver changed no row and asked the
// provider nothing.
func refused(j *judge.Judge) {
	ref := j.First
	var problems []string
	ok := "refused: exited"
	if ref == nil {
		problems = append(problems, "the run without an approver did not happen")
	} else {
		ok = "refused: " + ref.Summary()
		if len(ref.Changes) > 0 {
			problems = append(problems, fmt.Sprintf("without an approver it changed %s (%s)",
				report.Plural(len(ref.Changes), "row"), changelog.Describe(ref.Changes[0])))
		}
		if len(ref.StatusBy) > 0 || len(ref.Violations[sched.RuleLimits]) > 0 && ref.Ended != "" {
			problems = append(problems, "without an approver it went on: "+ref.Summary())
		}
	}
	j.AddExercised("the redrive refuses to run without an approver (no row, no provider call)", ref != nil,
		"not run", problems, ok)
}

// audited: one AuditLog row written by the redrive before its first release
// names the approver, the reason and every entry it released.
func (v variation) audited(j *judge.Judge, rel []changelog.Change) {
	var problems []string
	var found bool
	for _, c := range j.Run.Changes {
		if c.Table != "AuditLog" || c.Op != "INSERT" || !byRedrive(j, c) {
			continue
		}
		text := c.New["actor"] + " " + c.New["action"] + " " + c.New["detail"]
		if !strings.Contains(text, v.Approver) || !strings.Contains(text, v.Reason) {
			continue
		}
		missing := ""
		for _, r := range rel {
			if !strings.Contains(text, r.New["messagekey"]) {
				missing = r.New["messagekey"]
			}
		}
		if missing != "" {
			problems = append(problems, "the audit row does not name "+missing)
		}
		if len(rel) > 0 && c.Seq > rel[0].Seq {
			problems = append(problems, "the audit row was written after the first release")
		}
		found = true
		break
	}
	if !found && len(rel) > 0 {
		problems = append(problems, "no AuditLog row names the approver "+v.Approver+" and the reason")
	}
	j.AddExercised("one AuditLog row names the approver, the reason and every entry, before any release",
		len(rel) > 0, "nothing was released", problems, "audited before the first release")
}

func (v variation) countersKept(j *judge.Judge, rel []changelog.Change) {
	var problems []string
	for _, c := range rel {
		before, after := c.OldInt("AttemptCount"), c.NewInt("AttemptCount")
		if after != before {
			problems = append(problems, fmt.Sprintf("%s released with AttemptCount %d→%d: counters are kept",
				c.New["messagekey"], before, after))
		}
		if m := c.NewInt("MaxAttempts"); m != before+v.RedriveMore {
			problems = append(problems, fmt.Sprintf("%s released with MaxAttempts %d, want AttemptCount %d + %d",
				c.New["messagekey"], m, before, v.RedriveMore))
		}
	}
	for _, c := range j.MessageChanges() {
		if c.NewInt("AttemptCount") < c.OldInt("AttemptCount") {
			problems = append(problems, fmt.Sprintf("message %d AttemptCount lowered %s→%s", c.RowID,
				c.Old["attemptcount"], c.New["attemptcount"]))
		}
	}
	j.AddExercised("counters kept: AttemptCount never reset, MaxAttempts = AttemptCount + REDRIVE_ATTEMPTS",
		len(rel) > 0, "nothing was released", problems, report.Plural(len(rel), "entry")+" released, counters kept")
}

func (v variation) redrivesRows(j *judge.Judge, rel []changelog.Change) {
	var problems []string
	inserts := map[string]changelog.Change{}
	for _, c := range j.Run.Changes {
		if c.Table == "Redrives" && c.Op == "INSERT" {
			inserts[c.New["messageid"]] = c
		}
	}
	for _, c := range rel {
		rd, ok := inserts[strconv.FormatInt(c.RowID, 10)]
		key := c.New["messagekey"]
		switch {
		case !ok:
			problems = append(problems, key+" released with no Redrives row")
		case rd.New["originalattemptcount"] != c.Old["attemptcount"] ||
			rd.New["originallasterror"] != c.Old["lasterror"] ||
			rd.New["originaldeadletteredatutc"] != c.Old["deadletteredatutc"]:
			problems = append(problems, key+"'s Redrives row does not keep its original AttemptCount, "+
				"LastError and DeadLetteredAtUtc")
		case rd.New["approver"] != v.Approver || rd.New["reason"] != v.Reason:
			problems = append(problems, key+"'s Redrives row names another approver or reason")
		}
	}
	j.AddExercised("a Redrives row per released entry keeps its original counters, error and time",
		len(rel) > 0, "nothing was released", problems, report.Plural(len(rel), "Redrives row"))
}

// batched: the releases come in batches of at most REDRIVE_BATCH, at least
// REDRIVE_INTERVAL apart in scenario time.
func (v variation) batched(j *judge.Judge, rel []changelog.Change) {
	var problems []string
	var times []time.Time
	sizes := map[int]int{}
	for _, c := range rel {
		if sizes[c.Turn] == 0 {
			at, _ := j.TurnAt(c)
			times = append(times, at)
		}
		sizes[c.Turn]++
	}
	for turn, n := range sizes {
		if n > v.RedriveBatch {
			at := j.Run.Turns[turn].At
			problems = append(problems, fmt.Sprintf("%d entries released at %s, batches of %d", n, clock.Stamp(at), v.RedriveBatch))
		}
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < v.RedriveEvery {
			problems = append(problems, fmt.Sprintf("batches at %s and %s: %s apart, want %s",
				clock.Stamp(times[i-1]), clock.Stamp(times[i]), clock.Millis(gap), clock.Millis(v.RedriveEvery)))
		}
	}
	total := len(v.Poison) + len(v.More)
	j.AddExercised("released in batches of at most REDRIVE_BATCH, at least REDRIVE_INTERVAL_MS apart",
		len(rel) > 0 && (total <= v.RedriveBatch || len(times) > 1 || !v.Fixed),
		"no second batch", problems, fmt.Sprintf("%s in %s (at most %d, %s apart)", report.Plural(len(rel), "entry"),
			report.Plural(len(times), "batch"), v.RedriveBatch, clock.Millis(v.RedriveEvery)))
}
