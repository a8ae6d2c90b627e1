package retry

import (
	"fmt"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// visibilityFigureList declares the pair's figures once: the comparison
// table's rows and the JSON metrics of the scenario's own run.
func (o *visibilityOptions) visibilityFigureList() []scenarios.Figure[*pairRun] {
	type fig = scenarios.Figure[*pairRun]
	return []fig{
		{Label: "Consumer time asleep holding a message", Key: "held_sleep_ms",
			Show: func(x *pairRun) string {
				return fmt.Sprintf("%s, %d past the lease", clockText(x.fig.heldSleep), x.fig.outlived)
			},
			Value: func(x *pairRun) any { return x.fig.heldSleep.Milliseconds() }},
		{Key: "held_past_lease", Value: func(x *pairRun) any { return x.fig.outlived }},
		{Label: "Overlapping holds (one message, two consumers)", Key: "overlapping_holds", Value: func(x *pairRun) any { return x.fig.overlaps }},
		{Label: "Sends while another consumer held the message", Key: "concurrent_sends", Value: func(x *pairRun) any { return x.fig.concurrent }},
		{Label: "Notifications delivered twice (extra deliveries)", Key: "extra_deliveries", Value: func(x *pairRun) any { return x.fig.duplicates }},
		{Label: "Transitions refused (claim lost)", Key: "refused_transitions", Value: func(x *pairRun) any { return x.refused }},
		{Label: "Sends made while a message the consumer put back waited", Key: "other_work_sends", Value: func(x *pairRun) any { return x.fig.otherWork }},
		{Label: "Gateway sends (failed)", Key: "sends", Value: func(x *pairRun) any { return x.fig.sends },
			Show: func(x *pairRun) string { return fmt.Sprintf("%d (%d)", x.fig.sends, x.fig.failedSends) }},
		{Key: "failed_sends", Value: func(x *pairRun) any { return x.fig.failedSends }},
		{Label: "Sends beyond the retry budget / after the time budget",
			Show: func(x *pairRun) string { return fmt.Sprintf("%d / %d", x.fig.overAttempts, x.fig.overTime) }},
		{Label: "Processed", Key: "processed", Value: func(x *pairRun) any { return x.fig.processed }},
		{Label: "Dead-lettered", Key: "dead_lettered", Value: func(x *pairRun) any { return x.fig.dead },
			Show: func(x *pairRun) string {
				return fmt.Sprintf("%d (retry budget: %s; time budget: %s)", x.fig.dead, orNone(x.fig.retryExits), orNone(x.fig.timeExits))
			}},
		{Key: "retry_budget_exits", Value: func(x *pairRun) any { return strings.Join(x.fig.retryExits, ",") }},
		{Key: "time_budget_exits", Value: func(x *pairRun) any { return strings.Join(x.fig.timeExits, ",") }},
		{Label: "Pending / Processing at end", Key: "left", Value: func(x *pairRun) any { return x.fig.left }},
		{Label: "Last healthy notification out at", Show: func(x *pairRun) string { return report.StampOrDash(x.fig.lastHealthy) }},
		{Label: "Run ended at", Key: "scenario_end", Show: endText, Value: func(x *pairRun) any { return clock.ISO(x.ended) }},
		{Key: "demo_capped", Value: func(x *pairRun) any { return x.capped }},
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
