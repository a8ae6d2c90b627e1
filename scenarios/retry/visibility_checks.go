package retry

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
)

func (o *visibilityOptions) writeMetrics(r *report.Report, before, after *pairRun) {
	b, a := o.figures(before), o.figures(after)
	exits := func(f pairFigures) string {
		return fmt.Sprintf("%d (retry budget: %s; time budget: %s)", f.dead, orNone(f.retryExits), orNone(f.timeExits))
	}
	sleep := func(f pairFigures) string {
		return fmt.Sprintf("%s, %d past the lease", clockText(f.heldSleep), f.outlived)
	}
	rows := [][]string{
		{"Consumer time asleep holding a message", sleep(b), sleep(a)},
		{"Overlapping holds (one message, two consumers)", strconv.Itoa(b.overlaps), strconv.Itoa(a.overlaps)},
		{"Sends while another consumer held the message", strconv.Itoa(b.concurrent), strconv.Itoa(a.concurrent)},
		{"Notifications delivered twice (extra deliveries)", strconv.Itoa(b.duplicates), strconv.Itoa(a.duplicates)},
		{"Transitions refused (claim lost)", strconv.FormatInt(before.refused, 10), strconv.FormatInt(after.refused, 10)},
		{"Sends made while a message the consumer put back waited", strconv.Itoa(b.otherWork), strconv.Itoa(a.otherWork)},
		{"Gateway sends (failed)", fmt.Sprintf("%d (%d)", b.sends, b.failedSends), fmt.Sprintf("%d (%d)", a.sends, a.failedSends)},
		{"Sends beyond the retry budget / after the time budget", fmt.Sprintf("%d / %d", b.overAttempts, b.overTime), fmt.Sprintf("%d / %d", a.overAttempts, a.overTime)},
		{"Processed", strconv.Itoa(b.processed), strconv.Itoa(a.processed)},
		{"Dead-lettered", exits(b), exits(a)},
		{"Pending / Processing at end", strconv.Itoa(b.left), strconv.Itoa(a.left)},
		{"Last healthy notification out at", report.StampOrDash(b.lastHealthy), report.StampOrDash(a.lastHealthy)},
		{"Run ended at", endText(before), endText(after)},
	}
	r.Table([]string{"Metric (real run)", "BEFORE (held backoff)", "AFTER (on the queue)"}, rows)
}

// heldChecks judge the BEFORE run by its audit log, its gateway ledger and
// the database's answers to the owner-checked updates.
func (o *visibilityOptions) heldChecks(r *report.Report, run *pairRun, f pairFigures) {
	r.Check("a held backoff outlives the visibility timeout", f.outlived > 0,
		fmt.Sprintf("%d held backoffs ran past the lease", f.outlived))
	r.Check("a second consumer runs the same job concurrently", f.overlaps > 0 && f.concurrent > 0,
		fmt.Sprintf("%d overlapping holds, %d sends while another consumer held the message", f.overlaps, f.concurrent))
	r.Check("a notification goes out twice", f.duplicates > 0,
		report.Plural(int64(f.duplicates), "extra delivery"))
	r.Check("the owner check refuses the first holder only after its send", run.refused > 0 && f.superseded > 0,
		fmt.Sprintf("%d transitions refused", run.refused))
	r.Check("a consumer asleep holding a message does no other work", f.heldSleep > 0 && f.orphans == 0,
		fmt.Sprintf("%s asleep holding, %d sends meanwhile", clockText(f.heldSleep), f.orphans))
}

// queueChecks judge the AFTER run the same way.
func (o *visibilityOptions) queueChecks(r *report.Report, run *pairRun, f pairFigures) {
	r.Check("no two consumers ever hold one message", f.overlaps == 0 && f.concurrent == 0,
		fmt.Sprintf("%d overlapping holds, %d concurrent sends", f.overlaps, f.concurrent))
	r.Check("no notification goes out twice", f.duplicates == 0 && f.processedOnce == f.processedKeys,
		fmt.Sprintf("%d of %d processed sent exactly once, %s", f.processedOnce, f.processedKeys, report.Plural(int64(f.duplicates), "extra delivery")))
	r.Check("no consumer holds a message through a backoff", f.heldSleep == 0 && f.multiSend == 0 && run.refused == 0,
		fmt.Sprintf("%s asleep holding, %d transitions refused", clockText(f.heldSleep), run.refused))
	r.Check("consumers do other work while messages back off", f.otherWork > 0,
		fmt.Sprintf("%d sends while a message they put back waited", f.otherWork))
	r.Check("the retry budget is enforced", f.overAttempts == 0,
		fmt.Sprintf("%d sends beyond %d attempts; out this way: %s", f.overAttempts, o.MaxAttempts, orNone(f.retryExits)))
	r.Check("the time budget is enforced", f.overTime == 0,
		fmt.Sprintf("%d sends started after %s; out this way: %s", f.overTime, clockText(o.TimeBudget), orNone(f.timeExits)))
	r.Check("queue drained", f.left == 0, fmt.Sprintf("%d pending or processing", f.left))
}

func (o *visibilityOptions) recordMetrics(r *report.Report, run *pairRun, f pairFigures) {
	r.Metric("overlapping_holds", f.overlaps)
	r.Metric("concurrent_sends", f.concurrent)
	r.Metric("extra_deliveries", f.duplicates)
	r.Metric("refused_transitions", run.refused)
	r.Metric("held_sleep_ms", f.heldSleep.Milliseconds())
	r.Metric("held_past_lease", f.outlived)
	r.Metric("other_work_sends", f.otherWork)
	r.Metric("sends", f.sends)
	r.Metric("failed_sends", f.failedSends)
	r.Metric("processed", f.processed)
	r.Metric("dead_lettered", f.dead)
	r.Metric("retry_budget_exits", strings.Join(f.retryExits, ","))
	r.Metric("time_budget_exits", strings.Join(f.timeExits, ","))
	r.Metric("left", f.left)
	r.Metric("scenario_end", clock.ISO(run.ended))
	r.Metric("demo_capped", run.capped)
}

// whyHeldMissed says what these flags did to the BEFORE checks that failed.
func (o *visibilityOptions) whyHeldMissed(r *report.Report, f pairFigures) []string {
	failed := failedChecks(r)
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case f.heldSleep == 0:
		why = append(why, fmt.Sprintf("no consumer slept holding a message: with --max-attempts %d no failed send was retried", o.MaxAttempts))
	case o.Consumers == 1:
		why = append(why, "one consumer: when a held backoff outlives the lease there is no second consumer to take\n"+
			"the message over, so no job runs twice and no transition is refused")
	case f.outlived == 0:
		why = append(why, fmt.Sprintf("the --visibility-timeout of %s outlasts every held backoff (the longest hold took %s):\n"+
			"no lease ran out, so no second consumer took a message over and nothing was sent twice",
			clockText(o.Visibility), secondsText(f.longest)))
	case f.overlaps > 0 && f.duplicates == 0 && failed["a notification goes out twice"]:
		why = append(why, "leases ran out and second consumers took messages over, but none of the sends they\n"+
			"duplicated went through: the messages taken over were ones that fail")
		delete(failed, "a notification goes out twice")
		if len(failed) > 0 {
			why = append(why, unexplained)
		}
	default:
		why = append(why, unexplained)
	}
	return why
}

// whyQueueFailed says what these flags did to the AFTER checks that failed.
func (o *visibilityOptions) whyQueueFailed(r *report.Report, run *pairRun, f pairFigures) []string {
	failed := failedChecks(r)
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case !o.OnQueue:
		return []string{"--backoff-on-queue=false switches the AFTER design off: its consumers sleep through\n" +
			"each backoff holding the message, like the BEFORE design"}
	case o.Visibility < o.Hang && (run.refused > 0 || f.overlaps > 0):
		send := fmt.Sprintf("a hanging send (--hang %s)", clockText(o.Hang))
		if o.Visibility < sendTime {
			send = fmt.Sprintf("a send (%s)", clockText(sendTime))
		}
		why = append(why, fmt.Sprintf("the --visibility-timeout of %s is shorter than %s: the lease runs\n"+
			"out during the send, another consumer claims the message, and the holder's transition is refused,\n"+
			"so no budget can dead-letter it and it goes round", clockText(o.Visibility), send))
		if run.capped {
			why[0] += fmt.Sprintf(" until the demo cap stopped the run at %s", clockText(o.horizon()))
		}
		for _, name := range []string{"no two consumers ever hold one message", "no consumer holds a message through a backoff",
			"the retry budget is enforced", "the time budget is enforced", "queue drained", "no notification goes out twice"} {
			delete(failed, name)
		}
	}
	if failed["consumers do other work while messages back off"] && f.putBacks == 0 {
		why = append(why, fmt.Sprintf("no message was put back on the queue: with --max-attempts %d every failed send ended its\n"+
			"message, so there was no backoff to work around", o.MaxAttempts))
		delete(failed, "consumers do other work while messages back off")
	}
	if len(failed) > 0 {
		why = append(why, unexplained)
	}
	return why
}

func orNone(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

func endText(run *pairRun) string {
	if run.capped {
		return clock.Stamp(run.ended) + " (demo cap: never settled)"
	}
	return clock.Stamp(run.ended)
}
