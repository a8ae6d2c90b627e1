package retry

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/scenarios/scenariotest"
)

func TestJitterWaveValidate(t *testing.T) {
	testValidate(t, jitterWave, []validateCase{
		{nil, ""},
		{[]string{"--seed", "0", "--consumers", "10000", "--attempts", "100"}, ""},
		{[]string{"--consumers", "0"}, "--consumers must be between 1 and 10000, got 0"},
		{[]string{"--attempts", "101"}, "--attempts must be between 1 and 100, got 101"},
		{[]string{"--seed", "-1"}, "--seed must be between 0 and 9007199254740991, got -1"},
		{[]string{"--bucket", "0s"}, "--bucket must be between 1ms and 1h0m0s, got 0s"},
		{[]string{"--base", "1.5ms"}, "--base must be a whole number of milliseconds, got 1.5ms"},
		{[]string{"--cap", "2h"}, "--cap must be between 1ms and 1h0m0s, got 2h0m0s"},
		{[]string{"--cap", "400ms"}, "--cap 400ms is below --base 500ms"},
	})
}

// The want rows were printed by node v20 running the seed's jitter.mjs with
// the constants changed to each case's flags: requests, peak, filled, last.
func TestJitterWaveMatchesTheSeedsScript(t *testing.T) {
	tests := []struct {
		args []string
		want [3]string // no jitter, full jitter, decorrelated jitter
	}{
		{nil, [3]string{"800 200 4 75", "800 69 65 67", "800 28 163 389"}},
		{[]string{"--consumers", "1000", "--seed", "7"}, [3]string{"4000 1000 4 75", "4000 324 68 69", "4000 137 248 440"}},
		{[]string{"--attempts", "8", "--cap", "2s"}, [3]string{"1600 200 8 135", "1600 63 98 104", "1600 27 150 154"}},
		{[]string{"--consumers", "50", "--attempts", "6", "--bucket", "250ms", "--base", "300ms", "--cap", "5s", "--seed", "0"},
			[3]string{"300 50 6 57", "300 46 43 47", "300 23 66 78"}},
	}
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			r := scenariotest.Run(t, jitterWave, tt.args...)
			m := r.Result().Metrics
			for i, key := range []string{"no_jitter", "full_jitter", "decorrelated_jitter"} {
				got := fmt.Sprint(m["requests_"+key], " ", m["peak_"+key], " ", m["filled_buckets_"+key], " ", m["last_bucket_"+key])
				if got != tt.want[i] {
					t.Errorf("%s: requests, peak, filled, last = %s, want %s", key, got, tt.want[i])
				}
			}
			if !r.Passed() {
				t.Errorf("checks failed:\n%s", r.Body())
			}
		})
	}
}

func TestJitterWaveWithOneConsumerFailsItsChecks(t *testing.T) {
	r := scenariotest.Run(t, jitterWave, "--consumers", "1")
	var failed []string
	for _, c := range r.Result().Checks {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	want := "full jitter lowers the peak, decorrelated jitter lowers the peak"
	if got := strings.Join(failed, ", "); got != want {
		t.Errorf("failed checks %q, want %q: one consumer has no wave to flatten", got, want)
	}
}

func TestDrawnWaveKeepsEveryFilledBucketVisible(t *testing.T) {
	w := wave{buckets: map[int64]int{0: 200, 3: 1, 9: 100}, peak: 200, last: 9}
	rows := columnRows([]int{200, 0, 0, 1, 0, 0, 0, 0, 0, 100}, 200)
	if len(rows) != chartRows {
		t.Fatalf("%d rows, want %d", len(rows), chartRows)
	}
	if got, want := rows[0], "  200 ┤█"; got != want {
		t.Errorf("top row %q, want %q", got, want)
	}
	if got, want := rows[chartRows-1], "      │█  ▁     █"; got != want {
		t.Errorf("bottom row %q, want %q (one retry still shows)", got, want)
	}
	if got, want := rows[chartRows/2], "      │█        █"; got != want {
		t.Errorf("middle row %q, want %q (half the peak fills half the rows)", got, want)
	}
	if w.filled() != 3 {
		t.Errorf("filled() = %d, want 3", w.filled())
	}
}
