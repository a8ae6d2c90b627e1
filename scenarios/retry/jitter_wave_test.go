package retry

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/core/backoff"
	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

func TestJitterWaveValidate(t *testing.T) {
	testValidate(t, jitterWave, []validateCase{
		{nil, ""},
		{[]string{"--seed", "0", "--consumers", "10000", "--attempts", "50"}, ""},
		{[]string{"--consumers", "0"}, "--consumers must be between 1 and 10000, got 0"},
		{[]string{"--attempts", "51"}, "--attempts must be between 1 and 50, got 51"},
		{[]string{"--seed", "-1"}, "--seed must be between 0 and 9007199254740991, got -1"},
		{[]string{"--bucket", "0s"}, "--bucket must be between 1ms and 1h, got 0s"},
		{[]string{"--base", "1.5ms"}, "--base must be a whole number of milliseconds, got 1.5ms"},
		{[]string{"--cap", "2h"}, "--cap must be between 1ms and 1h, got 2h"},
		{[]string{"--cap", "400ms"}, ""},
		{[]string{"--cap", "1ms", "--base", "1h"}, ""},
		{[]string{"--cap", "0s"}, "--cap must be between 1ms and 1h, got 0s"},
	})
}

// The want rows were printed by node v20 running the course's jitter.mjs with
// the constants changed to each case's flags: requests, peak, filled, last.
func TestJitterWaveMatchesTheSeedsScript(t *testing.T) {
	tests := []struct {
		args         []string
		want         [3]string // no jitter, full jitter, decorrelated jitter
		capBelowBase bool      // decorrelated jitter has nothing to draw: the course's claims fail
	}{
		{args: nil, want: [3]string{"800 200 4 75", "800 69 65 67", "800 28 163 389"}},
		{args: []string{"--consumers", "1000", "--seed", "7"}, want: [3]string{"4000 1000 4 75", "4000 324 68 69", "4000 137 248 440"}},
		{args: []string{"--attempts", "8", "--cap", "2s"}, want: [3]string{"1600 200 8 135", "1600 63 98 104", "1600 27 150 154"}},
		{args: []string{"--consumers", "50", "--attempts", "6", "--bucket", "250ms", "--base", "300ms", "--cap", "5s", "--seed", "0"},
			want: [3]string{"300 50 6 57", "300 46 43 47", "300 23 66 78"}},
		// A cap below the base: the script's Math.min makes every wait the cap.
		{args: []string{"--cap", "400ms"}, want: [3]string{"800 200 4 16", "800 124 14 13", "800 200 4 16"}, capBelowBase: true},
		{args: []string{"--cap", "100ms"}, want: [3]string{"800 200 4 4", "800 347 4 3", "800 200 4 4"}, capBelowBase: true},
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
			// The table is the script's whatever the flags: no invariant breaks
			// (a low cap breaks the course's claims, which is what it shows).
			for _, c := range r.Result().Checks {
				if c.Role == report.RoleInvariant && c.Outcome != report.OutcomeHeld {
					t.Errorf("%s: %s %s", c.Name, c.Outcome, c.Detail)
				}
			}
			if r.Passed() != !tt.capBelowBase {
				t.Errorf("passed = %v, want %v:\n%s", r.Passed(), !tt.capBelowBase, r.Body())
			}
		})
	}
}

// One consumer is no crowd: the checks that jitter lowers the peak are not
// exercised, and the verdict says so.
func TestJitterWaveWithOneConsumerIsNotExercised(t *testing.T) {
	r := scenariotest.Run(t, jitterWave, "--consumers", "1")
	var idle, broken []string
	for _, c := range r.Result().Checks {
		switch c.Outcome {
		case report.OutcomeNotExercised:
			idle = append(idle, c.Name)
		case report.OutcomeBroken:
			broken = append(broken, c.Name)
		}
	}
	want := "full jitter lowers the peak, decorrelated jitter lowers the peak"
	if got := strings.Join(idle, ", "); got != want || len(broken) > 0 {
		t.Errorf("not exercised %q, broken %q; want %q and none: one consumer has no wave to flatten", got, broken, want)
	}
	if !strings.Contains(r.Body(), report.VerdictNotExercised) {
		t.Errorf("verdict is not %s:\n%s", report.VerdictNotExercised, r.Body())
	}
}

func TestDrawnWaveKeepsEveryFilledBucketVisible(t *testing.T) {
	w := wave{buckets: []bucketCount{{0, 200}, {3, 1}, {9, 100}}, peak: 200, last: 9}
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

// The reference run is the course's loop written apart from the lab's jitter:
// on its own it prints node's numbers too.
func TestJitterReferenceRunMatchesTheSeedsScript(t *testing.T) {
	o := scenariotest.Bind(t, jitterWave, "--consumers", "50", "--attempts", "6", "--bucket", "250ms",
		"--base", "300ms", "--cap", "5s", "--seed", "0").(*jitterWaveOptions)
	want := [3]string{"300 50 6 57", "300 46 43 47", "300 23 66 78"}
	for i, j := range backoff.Jitters {
		f, _ := referenceWave(j, o, wave{})
		if got := fmt.Sprint(f.requests, " ", f.peak, " ", f.filled, " ", f.last); got != want[i] {
			t.Errorf("%s: reference requests, peak, filled, last = %s, want %s", j, got, want[i])
		}
	}
}

// A wave that is not the course's, by a single retry in a single bucket, fails
// the check that holds it to the reference run; an unjittered wave off its
// schedule fails the schedule's check too.
func TestJitterWaveChecksCatchAWrongWave(t *testing.T) {
	const (
		reference  = "each wave equals a reference run of jitter.mjs"
		schedule   = "without jitter every consumer retries in the same bucket"
		neverLater = "full jitter never retries later than no jitter"
	)
	tests := []struct {
		name       string
		mode       int
		tamper     func(w *wave)
		wantFailed []string
		wantDetail string
	}{
		{"full jitter counts one retry twice", 1, func(w *wave) { w.buckets[0].n++ },
			[]string{reference}, "full jitter: bucket 0 holds 45 retries, the reference 44"},
		{"full jitter loses a bucket", 1, func(w *wave) { w.buckets = w.buckets[1:] },
			[]string{reference}, "full jitter: bucket 0 holds 0 retries, the reference 44"},
		{"no jitter retries one bucket late", 0, func(w *wave) { w.buckets[3].index++ },
			[]string{reference, schedule}, "no jitter: bucket 75 holds 0 retries, the reference 200"},
		{"a full-jitter wait drawn above its backoff", 1, func(w *wave) { w.latest[2] = 3501 },
			[]string{neverLater}, "800 / 800 / 800 retries in 4 / 65 / 163 buckets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := scenariotest.Bind(t, jitterWave).(*jitterWaveOptions)
			waves, ref, diffs := o.waves(func(i int, w *wave) {
				if i == tt.mode {
					tt.tamper(w)
				}
			})
			r := report.New(jitterWave, report.Experiment)
			o.checks(r, waves, ref, diffs)
			for _, name := range []string{reference, schedule, neverLater} {
				c := scenariotest.CheckNamed(t, r, name)
				if want := slices.Contains(tt.wantFailed, name); c.Passed == want {
					t.Errorf("%q passed = %v, want %v: %s", name, c.Passed, !want, c.Detail)
				}
			}
			if got := scenariotest.CheckNamed(t, r, reference).Detail; got != tt.wantDetail {
				t.Errorf("detail %q, want %q", got, tt.wantDetail)
			}
			if r.Passed() {
				t.Error("the report passed with a wrong wave")
			}
		})
	}
}

// A failed property comes with the reason the flags caused it; a passing
// run explains nothing.
func TestJitterWaveSaysWhyItsChecksFailed(t *testing.T) {
	testWhy(t, []whyCase{
		{jitterWave, []string{"--bucket", "1h"}, []string{"  WHY   the 60 min bucket is wider than the schedule"}},
		{jitterWave, []string{"--cap", "500ms"}, []string{"  WHY   --cap 500 ms is not above --base 500 ms: every decorrelated wait is capped at 500 ms"}},
		{jitterWave, []string{"--cap", "100ms"}, []string{"  WHY   --cap 100 ms is not above --base 500 ms",
			"  WHY   jitter did not thin the busiest bucket: 200 retries without jitter, 347 with full"}},
		{jitterWave, []string{"--attempts", "50", "--bucket", "1ms", "--cap", "1h", "--consumers", "100"},
			[]string{"  WHY   once the schedule reaches the --cap of 60 min"}},
	})
	// The run at the defaults is the golden's (cli's golden tests make it).
	if strings.Contains(scenariotest.Golden(t, jitterWave), "WHY") {
		t.Error("a passing run explains a failure")
	}
}
