package retry

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

func TestDurationTexts(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{clockText(2 * time.Second), "2 s"},
		{clockText(1500 * time.Millisecond), "1500 ms"},
		{clockText(5 * time.Minute), "5 min"},
		{clockText(90 * time.Second), "90 s"},
		{secondsText(175003 * time.Millisecond), "175.003 s"},
		{secondsText(142 * time.Second), "142 s"},
		{firstOf("1, 2, 3, 4, 5, 6, 7, 8"), "1, 2, 3, 4, 5, 6, … (+2)"},
		{firstOf("1, 2"), "1, 2"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// The fixed schedule's column is named after its flag, as the seed names it "fixed 2 s".
func TestScheduleNamesFollowTheFlags(t *testing.T) {
	o := scenariotest.Bind(t, backoffSchedules, "--fixed", "1500ms").(*schedulesOptions)
	if got := o.schedules()[1].name; got != "fixed 1500 ms" {
		t.Errorf("fixed schedule named %q, want %q", got, "fixed 1500 ms")
	}
}

// An experiment's table has a row per run and a column per labelled metric;
// its JSON metrics carry the run's key after the metric's.
func TestMetricRowsAndKeyedMetrics(t *testing.T) {
	type run struct{ calls, failed int }
	metrics := []scenarios.Metric[run]{
		{Label: "calls", Key: "calls", Value: func(x run) any { return x.calls }},
		{Label: "failed", Show: func(x run) string { return fmt.Sprintf("%d!", x.failed) }},
		{Key: "failed", Value: func(x run) any { return x.failed }},
	}
	r := report.New("probe", report.Experiment)
	runs := []run{{3, 1}, {5, 0}}
	metricRows(r, "design", metrics, []string{"one", "two"}, runs)
	for i, name := range []string{"one", "two"} {
		recordMetricsOf(r, metrics, name, runs[i])
	}
	for _, want := range []string{"│ design │ calls │ failed │", "│ one    │ 3     │ 1!     │", "│ two    │ 5     │ 0!     │"} {
		if !strings.Contains(r.Body(), want) {
			t.Errorf("table lacks %q:\n%s", want, r.Body())
		}
	}
	got := fmt.Sprint(r.Result().Metrics)
	if want := "map[calls_one:3 calls_two:5 failed_one:1 failed_two:0]"; got != want {
		t.Errorf("metrics %s, want %s", got, want)
	}
}
