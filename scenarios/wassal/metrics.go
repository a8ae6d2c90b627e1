package wassal

import (
	"fmt"
	"strconv"

	"outboxlab/scenarios"
)

// The metric shapes the days share. A metric is declared once, in a day's
// metricList: its row in the BEFORE vs AFTER table and its JSON metric.

// keysMetric counts keys: the row names them, "2 (PAY-002, PAY-004)", the
// metric records how many.
func keysMetric[F any](label, key string, keys func(F) []string) scenarios.Metric[F] {
	return scenarios.Metric[F]{Label: label, Key: key,
		Show:  func(f F) string { return countWith(keys(f)) },
		Value: func(f F) any { return len(keys(f)) }}
}

// intMetric is one number, in the row and in the metric.
func intMetric[F any](label, key string, n func(F) int) scenarios.Metric[F] {
	return scenarios.Metric[F]{Label: label, Key: key, Value: func(f F) any { return n(f) }}
}

// metric is a JSON metric the table does not show.
func metric[F any](key string, v func(F) any) scenarios.Metric[F] {
	return scenarios.Metric[F]{Key: key, Value: v}
}

// twoMetrics is a row of two numbers, "a / b", recorded as two metrics.
func twoMetrics[F any](label, keyA, keyB string, a, b func(F) int) []scenarios.Metric[F] {
	return []scenarios.Metric[F]{
		{Label: label, Key: keyA, Show: func(f F) string { return slash(a(f), b(f)) }, Value: func(f F) any { return a(f) }},
		metric(keyB, func(f F) any { return b(f) }),
	}
}

// resolvedMetrics are the payments a run resolved, the row "Paid / Failed"
// and the metrics paid and failed.
func resolvedMetrics[F any](label string, paid, failed func(F) int) []scenarios.Metric[F] {
	return twoMetrics(label, "paid", "failed", paid, failed)
}

// fakeMetric is the payments showing an outcome the provider never gave.
func fakeMetric[F any](ids func(F) txIDs) scenarios.Metric[F] {
	return intMetric("Fake successes", "fake_successes", func(f F) int { return ids(f).fake })
}

func slash(a, b int) string { return strconv.Itoa(a) + " / " + strconv.Itoa(b) }

// failedOf is "12 (9 failed)".
func failedOf(n, failed int) string { return fmt.Sprintf("%d (%d failed)", n, failed) }
