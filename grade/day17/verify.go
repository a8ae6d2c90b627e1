package day17

import (
	"fmt"

	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
)

// How the redrive ends: every entry verified before it is closed, or, the
// provider still broken, halted after the first batch.

// verifiedBeforeClosing: every Redrives row Closed, after a status check by
// the redrive made once its message was Processed, with that check's id.
func verifiedBeforeClosing(j *judge.Judge) {
	rows := j.Tables["Redrives"]
	var problems []string
	processedSeq := map[string]int64{}
	closedSeq := map[string]int64{}
	for _, c := range j.Run.Changes {
		if c.Table == "OutboxMessages" && c.New["status"] == "Processed" && c.Changed("Status") {
			processedSeq[c.New["messagekey"]] = c.Seq
		}
		if c.Table == "Redrives" && c.New["outcome"] == "Closed" && c.Changed("Outcome") {
			closedSeq[c.New["messagekey"]] = c.Seq
		}
	}
	for _, rd := range rows {
		key := rd.Get("MessageKey")
		if rd.Get("Outcome") != "Closed" {
			problems = append(problems, fmt.Sprintf("%s's redrive is %s, not Closed", key, rd.Get("Outcome")))
			continue
		}
		var verified *sched.StatusCall
		for i, sc := range j.Run.StatusBy[key] {
			if sc.Seq >= processedSeq[key] && sc.Seq < closedSeq[key] && sc.Worker != sched.LabWorkerID {
				verified = &j.Run.StatusBy[key][i]
			}
		}
		switch {
		case verified == nil:
			problems = append(problems, key+" closed without a status check after it was processed")
		case rd.Get("VerifiedTransactionId") != verified.Tx:
			problems = append(problems, fmt.Sprintf("%s closed with %s, the provider said %s", key,
				changelog.OrDash(rd.Get("VerifiedTransactionId")), changelog.OrDash(verified.Tx)))
		case !rd.Has("ClosedAtUtc"):
			problems = append(problems, key+" closed with no ClosedAtUtc")
		}
	}
	j.AddExercised("every redriven entry verified with the provider before its Redrives row was Closed",
		len(rows) > 0, "no Redrives row", problems, report.Plural(len(rows), "entry")+" verified, then closed")
}

// haltedAfterFirstBatch: with the provider still broken, the first batch
// comes back dead-lettered and nothing more is released.
func (v variation) haltedAfterFirstBatch(j *judge.Judge, rel []changelog.Change) {
	rows := j.Tables["Redrives"]
	total := len(v.Poison) + len(v.More)
	want := min(v.RedriveBatch, total)
	var problems []string
	if len(rel) != want {
		problems = append(problems, fmt.Sprintf("%s released, want the first batch only (%d)", report.Plural(len(rel), "entry"), want))
	}
	for _, rd := range rows {
		if rd.Get("Outcome") != "DeadLetteredAgain" {
			problems = append(problems, fmt.Sprintf("%s's redrive is %s, want DeadLetteredAgain", rd.Get("MessageKey"), rd.Get("Outcome")))
		}
	}
	parked := 0
	for _, m := range j.Messages {
		if m.Get("Status") == "DeadLettered" {
			parked++
		}
	}
	if parked != total {
		problems = append(problems, fmt.Sprintf("%d dead letters at the end, want all %d parked", parked, total))
	}
	j.AddExercised("with the provider still broken: halted after the first batch, the rest left parked",
		len(rel) > 0, "nothing was released", problems, fmt.Sprintf("%d released, dead-lettered again, %d parked", want, total))
}
