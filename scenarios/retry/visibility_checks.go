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
	sleep := func(run *pairRun) string {
		return fmt.Sprintf("%s, %d past the lease", clockText(run.heldSleep), run.outlived)
	}
	rows := [][]string{
		{"Consumer time asleep holding a message", sleep(before), sleep(after)},
		{"Overlapping holds (one message, two consumers)", strconv.Itoa(b.overlaps), strconv.Itoa(a.overlaps)},
		{"Sends while another consumer held the message", strconv.Itoa(before.concurrent), strconv.Itoa(after.concurrent)},
		{"Notifications delivered twice (extra deliveries)", strconv.Itoa(b.duplicates), strconv.Itoa(a.duplicates)},
		{"Transitions refused (claim lost)", strconv.FormatInt(before.refused, 10), strconv.FormatInt(after.refused, 10)},
		{"Sends made while a message the consumer put back waited", strconv.Itoa(before.otherWork), strconv.Itoa(after.otherWork)},
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

func (o *visibilityOptions) heldChecks(r *report.Report, run *pairRun, f pairFigures) {
	r.Check("a held backoff outlives the visibility timeout", run.outlived > 0,
		fmt.Sprintf("%d held backoffs ran past the lease", run.outlived))
	r.Check("a second consumer runs the same job concurrently", f.overlaps > 0 && run.concurrent > 0,
		fmt.Sprintf("%d overlapping holds, %d sends while another consumer held the message", f.overlaps, run.concurrent))
	r.Check("a notification goes out twice", f.duplicates > 0,
		report.Plural(int64(f.duplicates), "extra delivery"))
	r.Check("the owner check refuses the first holder only after its send", run.refused > 0,
		fmt.Sprintf("%d transitions refused", run.refused))
	r.Check("a consumer asleep holding a message does no other work", run.heldSleep > 0 && run.otherWork == 0,
		fmt.Sprintf("%s asleep holding, %d sends meanwhile", clockText(run.heldSleep), run.otherWork))
}

func (o *visibilityOptions) queueChecks(r *report.Report, run *pairRun, f pairFigures) {
	r.Check("no two consumers ever hold one message", f.overlaps == 0 && run.concurrent == 0,
		fmt.Sprintf("%d overlapping holds, %d concurrent sends", f.overlaps, run.concurrent))
	r.Check("no notification goes out twice", f.duplicates == 0 && f.processedOnce == f.processedKeys,
		fmt.Sprintf("%d of %d processed sent exactly once, %s", f.processedOnce, f.processedKeys, report.Plural(int64(f.duplicates), "extra delivery")))
	r.Check("no consumer holds a message through a backoff", run.heldSleep == 0 && run.refused == 0,
		fmt.Sprintf("%s asleep holding, %d transitions refused", clockText(run.heldSleep), run.refused))
	r.Check("consumers do other work while messages back off", run.otherWork > 0,
		fmt.Sprintf("%d sends while a message they put back waited", run.otherWork))
	r.Check("the retry budget is enforced", f.overAttempts == 0,
		fmt.Sprintf("%d sends beyond %d attempts; out this way: %s", f.overAttempts, o.MaxAttempts, orNone(f.retryExits)))
	r.Check("the time budget is enforced", f.overTime == 0,
		fmt.Sprintf("%d sends started after %s; out this way: %s", f.overTime, clockText(o.TimeBudget), orNone(f.timeExits)))
	r.Check("queue drained", f.left == 0, fmt.Sprintf("%d pending or processing", f.left))
}

func (o *visibilityOptions) recordMetrics(r *report.Report, run *pairRun, f pairFigures) {
	r.Metric("overlapping_holds", f.overlaps)
	r.Metric("concurrent_sends", run.concurrent)
	r.Metric("extra_deliveries", f.duplicates)
	r.Metric("refused_transitions", run.refused)
	r.Metric("held_sleep_ms", run.heldSleep.Milliseconds())
	r.Metric("held_past_lease", run.outlived)
	r.Metric("other_work_sends", run.otherWork)
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
