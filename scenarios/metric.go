package scenarios

import (
	"fmt"

	"outboxlab/core/report"
)

// Metric is one number a report is judged by, declared once: its row in the
// report's metrics table and its key in the run's JSON metrics both come
// from here. F is the family's metrics of one run (read from the rows and
// ledgers it left).
type Metric[F any] struct {
	Label string         // the row's label in the table; "" for a metric the table does not show
	Key   string         // the JSON metric key; "" for a row the JSON does not record
	Show  func(F) string // the cell; nil prints Value with %v
	Value func(F) any    // the JSON value; nil records Show's text
}

func (f Metric[F]) cell(x F) string {
	if f.Show != nil {
		return f.Show(x)
	}
	return fmt.Sprint(f.Value(x))
}

func (f Metric[F]) value(x F) any {
	if f.Value != nil {
		return f.Value(x)
	}
	return f.Show(x)
}

// MetricTable writes metrics as a table under header: one row per metric with
// a label, then one cell for each of runs (e.g. the BEFORE and AFTER runs).
func MetricTable[F any](r *report.Report, header []string, metrics []Metric[F], runs ...F) {
	rows := make([][]string, 0, len(metrics))
	for _, f := range metrics {
		if f.Label == "" {
			continue
		}
		row := []string{f.Label}
		for _, x := range runs {
			row = append(row, f.cell(x))
		}
		rows = append(rows, row)
	}
	r.Table(header, rows)
}

// RecordMetrics records each keyed metric of own, the scenario's own run,
// as a JSON metric.
func RecordMetrics[F any](r *report.Report, metrics []Metric[F], own F) {
	RecordMetricsAs(r, metrics, own, func(key string) string { return key })
}

// RecordMetricsAs records each keyed metric of x, one of several runs a
// report compares, under the key as renamed for that run: restarts_on_catch,
// pause_records.
func RecordMetricsAs[F any](r *report.Report, metrics []Metric[F], x F, rename func(key string) string) {
	for _, f := range metrics {
		if f.Key != "" {
			r.Metric(rename(f.Key), f.value(x))
		}
	}
}
