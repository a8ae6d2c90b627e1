package retry

import (
	"fmt"
	"strconv"

	"outboxlab/core/clock"
	"outboxlab/core/report"
)

func (o *stormOptions) writeStormMetrics(r *report.Report, before, after *stormRun) {
	b, a := o.figures(before), o.figures(after)
	rows := [][]string{
		{"Gateway calls during the outage", callsText(b.calls[1], b.failed[1]), callsText(a.calls[1], a.failed[1])},
		{"Breaker opened / probes (failed)", "— (no breaker)", fmt.Sprintf("%d / %d (%d)", opens(after), a.probes, a.failedProbes)},
		{"Messages with a failed send", strconv.Itoa(b.affected), strconv.Itoa(a.affected)},
		{"Processed", fmt.Sprintf("%d / %d", b.processed, o.Messages), fmt.Sprintf("%d / %d", a.processed, o.Messages)},
		{"Dead-lettered because of the outage", strconv.Itoa(b.dead), strconv.Itoa(a.dead)},
		{"Pending / Processing at end", strconv.Itoa(b.left), strconv.Itoa(a.left)},
		{"Last notification sent at", report.StampOrDash(b.lastProcessed), report.StampOrDash(a.lastProcessed)},
		{"Run ended at", clock.Stamp(before.ended), clock.Stamp(after.ended)},
	}
	r.Table([]string{"Metric (real run)", "BEFORE (no breaker)", "AFTER (circuit breaker)"}, rows)
}

func opens(run *stormRun) int {
	n := 0
	for _, t := range run.transitions {
		if t.To == "open" {
			n++
		}
	}
	return n
}

func (o *stormOptions) stormChecks(r *report.Report, own *stormRun, b, a stormFigures) {
	if !o.breaker {
		r.Check("the down gateway takes the whole retry load", b.failed[1] == b.calls[1] && b.calls[1] > b.affected,
			fmt.Sprintf("%d calls during the outage, all failed, for %d messages", b.calls[1], b.affected))
		r.Check("messages are dead-lettered because of the outage", b.dead > 0,
			fmt.Sprintf("%d dead-lettered; the gateway was only down", b.dead))
		r.Check("the outage costs notifications that were never wrong", b.processed < o.Messages,
			fmt.Sprintf("%d of %d processed", b.processed, o.Messages))
		return
	}
	tripped := min(o.FailuresToOpen, a.calls[1])
	r.Check("during the outage the consumer only trips the breaker and probes",
		opens(own) > 0 && a.calls[1] == tripped+a.failedProbes,
		fmt.Sprintf("%d calls = %d that opened it + %d failed probes", a.calls[1], tripped, a.failedProbes))
	r.Check("gateway calls during the outage fall sharply", a.calls[1] < b.calls[1],
		fmt.Sprintf("%d vs %d without a breaker", a.calls[1], b.calls[1]))
	r.Check("nothing is dead-lettered because of the outage", a.dead == 0,
		fmt.Sprintf("%d dead-lettered", a.dead))
	r.Check("every message is processed once the gateway recovers", a.processed == o.Messages && a.left == 0,
		fmt.Sprintf("%d of %d processed, %d left", a.processed, o.Messages, a.left))
	closing := "no probe closed it"
	if a.closedAfterRecovery {
		closing = "the last closed it at " + clock.Stamp(a.closedAt)
	}
	r.Check("a probe after recovery closes the breaker", a.closedAfterRecovery,
		fmt.Sprintf("%d probes; %s (gateway back at %s)", a.probes, closing, clock.Stamp(o.phases()[2].from)))
}

func (o *stormOptions) recordStormMetrics(r *report.Report, run *stormRun) {
	f := o.figures(run)
	for i, key := range []string{"before_outage", "during_outage", "after_recovery"} {
		r.Metric("calls_"+key, f.calls[i])
		r.Metric("failed_calls_"+key, f.failed[i])
	}
	r.Metric("processed", f.processed)
	r.Metric("dead_lettered", f.dead)
	r.Metric("left", f.left)
	r.Metric("breaker_opens", opens(run))
	r.Metric("probes", f.probes)
	r.Metric("failed_probes", f.failedProbes)
	r.Metric("scenario_end", clock.ISO(run.ended))
}
