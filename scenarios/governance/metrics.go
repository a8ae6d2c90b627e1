package governance

import (
	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// drainMetrics are the metrics every drain scenario records for its claim
// drain, read from the rows it left, the provider's ledger and the host's
// alerts. No table shows them: the report has the rows themselves.
var drainMetrics = []scenarios.Metric[*driveRun]{
	{Key: "max_retry_attempts", Value: func(r *driveRun) any { return r.flags.MaxRetryAttempts }},
	{Key: "dead_letter_on_max_retry_attempts", Value: func(r *driveRun) any { return r.flags.DeadLetterOnMaxRetryAttempts }},
	{Key: "delivered", Value: func(r *driveRun) any { return countStatus(r, emission.Delivered) }},
	{Key: "dead_lettered", Value: func(r *driveRun) any { return countStatus(r, emission.DeadLettered) }},
	{Key: "dead_letter_counter", Value: func(r *driveRun) any { return r.alerts.DeadLettered() }},
	{Key: "emitter_calls", Value: func(r *driveRun) any { return len(r.calls) }},
	{Key: "retry_count", Value: func(r *driveRun) any {
		retry := map[string]int{}
		for _, e := range r.entries {
			retry[e.Key] = e.RetryCount
		}
		return retry
	}},
	{Key: "demo_capped", Value: func(r *driveRun) any { return r.capped }},
	{Key: "scenario_end", Value: func(r *driveRun) any { return clock.ISO(r.ended) }},
}

// withMetrics is drainMetrics and a scenario's own.
func withMetrics(own ...scenarios.Metric[*driveRun]) []scenarios.Metric[*driveRun] {
	return append(append([]scenarios.Metric[*driveRun](nil), drainMetrics...), own...)
}

// finish ends a governance report the same way in every scenario: the
// checks recorded so far under title, the verdict they decide, and the
// metrics of own, the scenario's own run, as its JSON metrics.
func finish[F any](r *report.Report, title, pass, fail string, metrics []scenarios.Metric[F], own F) *report.Report {
	r.Checks(title)
	r.Verdict(pass, fail)
	scenarios.RecordMetrics(r, metrics, own)
	return r
}
