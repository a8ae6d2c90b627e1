package retry

import (
	"fmt"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// visibilityMetricList declares the pair's metrics once: the comparison
// table's rows and the JSON metrics of the scenario's own run.
func (o *visibilityOptions) visibilityMetricList() []scenarios.Metric[*pairRun] {
	type metric = scenarios.Metric[*pairRun]
	return []metric{
		{Label: "Asleep holding a message", Key: "held_sleep_ms",
			Show: func(x *pairRun) string {
				return fmt.Sprintf("%s, %d past the lease", clockText(x.read.heldSleep), x.read.outlived)
			},
			Value: func(x *pairRun) any { return x.read.heldSleep.Milliseconds() }},
		{Key: "held_past_lease", Value: func(x *pairRun) any { return x.read.outlived }},
		{Label: "Overlapping holds", Key: "overlapping_holds", Value: func(x *pairRun) any { return x.read.overlaps }},
		{Label: "Sends while another held it", Key: "concurrent_sends", Value: func(x *pairRun) any { return x.read.concurrent }},
		{Label: "Extra deliveries (sent twice)", Key: "extra_deliveries", Value: func(x *pairRun) any { return x.read.duplicates }},
		{Label: "Transitions refused", Key: "refused_transitions", Value: func(x *pairRun) any { return x.refused }},
		{Label: "Other work while one backs off", Key: "other_work_sends", Value: func(x *pairRun) any { return x.read.otherWork }},
		{Label: "Gateway sends (failed)", Key: "sends", Value: func(x *pairRun) any { return x.read.sends },
			Show: func(x *pairRun) string { return fmt.Sprintf("%d (%d)", x.read.sends, x.read.failedSends) }},
		{Key: "failed_sends", Value: func(x *pairRun) any { return x.read.failedSends }},
		{Label: "Sends over retry / time budget",
			Show: func(x *pairRun) string { return fmt.Sprintf("%d / %d", x.read.overAttempts, x.read.overTime) }},
		{Label: "Processed", Key: "processed", Value: func(x *pairRun) any { return x.read.processed }},
		{Label: "Dead-lettered", Key: "dead_lettered", Value: func(x *pairRun) any { return x.read.dead }},
		{Label: "Dead-lettered: retry budget", Key: "retry_budget_exits", Value: func(x *pairRun) any { return strings.Join(x.read.retryExits, ",") },
			Show: func(x *pairRun) string { return orNone(x.read.retryExits) }},
		{Label: "Dead-lettered: time budget", Key: "time_budget_exits", Value: func(x *pairRun) any { return strings.Join(x.read.timeExits, ",") },
			Show: func(x *pairRun) string { return orNone(x.read.timeExits) }},
		{Label: "Pending / Processing at end", Key: "left", Value: func(x *pairRun) any { return x.read.left }},
		{Label: "Last healthy one out at", Show: func(x *pairRun) string { return report.StampOrDash(x.read.lastHealthy) }},
		{Label: "Run ended at", Key: "scenario_end", Show: endText, Value: func(x *pairRun) any { return clock.ISO(x.ended) }},
		{Key: "demo_capped", Value: func(x *pairRun) any { return x.capped }},
		// The rule "the backoff must not exceed the visibility timeout", from the holds.
		{Key: "held_waits_within_lease", Value: func(x *pairRun) any { return x.read.rule.within }},
		{Key: "held_waits_within_lease_overlapped", Value: func(x *pairRun) any { return x.read.rule.withinOverlapped }},
		{Key: "held_waits_past_lease", Value: func(x *pairRun) any { return x.read.rule.past }},
		{Key: "held_waits_past_lease_overlapped", Value: func(x *pairRun) any { return x.read.rule.pastOverlapped }},
		{Key: "queue_waits_over_visibility_timeout", Value: func(x *pairRun) any { return x.read.rule.queueLong }},
	}
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
