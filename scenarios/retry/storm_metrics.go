package retry

import (
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// stormMetricList declares the pair's metrics once: the comparison table's
// rows and the JSON metrics of the scenario's own run.
func (o *stormOptions) stormMetricList() []scenarios.Metric[*stormRun] {
	type metric = scenarios.Metric[*stormRun]
	// A design without a breaker opened nothing and probed nothing, whatever
	// the breaker rule says of its ledger.
	breaker := func(of func(breakerReplay) int) func(*stormRun) any {
		return func(x *stormRun) any {
			if !x.breaker {
				return 0
			}
			return of(x.read.breaker)
		}
	}
	metrics := []metric{
		{Label: "Gateway calls during the outage", Show: func(x *stormRun) string { return callsText(x.read.calls[1], x.read.failed[1]) }},
		{Label: "Breaker opened / probes (failed)", Show: func(x *stormRun) string {
			if !x.breaker {
				return "— (no breaker)"
			}
			return fmt.Sprintf("%d / %d (%d)", x.read.breaker.opens, x.read.breaker.probes, x.read.breaker.failedProbes)
		}},
		{Label: "Messages with a failed send", Value: func(x *stormRun) any { return x.read.affected }},
		{Label: "Retries into the down gateway", Key: "outage_retries", Value: func(x *stormRun) any { return x.read.calls[1] - x.read.affected }},
		{Label: "Processed", Key: "processed", Value: func(x *stormRun) any { return x.read.processed },
			Show: func(x *stormRun) string { return fmt.Sprintf("%d / %d", x.read.processed, o.Messages) }},
		{Label: "Dead-lettered because of the outage", Key: "dead_lettered", Value: func(x *stormRun) any { return x.read.dead }},
		{Label: "Pending / Processing at end", Key: "left", Value: func(x *stormRun) any { return x.read.left }},
		{Label: "Last notification sent at", Show: func(x *stormRun) string { return report.StampOrDash(x.read.lastProcessed) }},
		{Label: "Run ended at", Key: "scenario_end", Show: func(x *stormRun) string { return clock.Stamp(x.ended) },
			Value: func(x *stormRun) any { return clock.ISO(x.ended) }},
		{Key: "breaker_opens", Value: breaker(func(b breakerReplay) int { return b.opens })},
		{Key: "probes", Value: breaker(func(b breakerReplay) int { return b.probes })},
		{Key: "failed_probes", Value: breaker(func(b breakerReplay) int { return b.failedProbes })},
	}
	for i, phase := range []string{"before_outage", "during_outage", "after_recovery"} {
		metrics = append(metrics,
			metric{Key: "calls_" + phase, Value: func(x *stormRun) any { return x.read.calls[i] }},
			metric{Key: "failed_calls_" + phase, Value: func(x *stormRun) any { return x.read.failed[i] }})
	}
	return metrics
}

// unexplained is the reason given for a failure no flag accounts for.
const unexplained = "no flag explains this failure: the run did not do what the design says"
