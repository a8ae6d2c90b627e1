package workers

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/scenarios"
)

// TestNoiseRuleRuns holds the conclusion to its sentence both ways, over
// OUTBOXLAB_NOISE_RUNS runs of each case (skipped when unset: each run
// measures for seconds, and wants the machine to itself as far as it can):
// with a handler that waits 5 ms outside the transaction, 4 workers are
// faster than 1 in every run; two series of 1 worker are inside the noise in
// every run. Each run is logged with the machine's load beside it.
//
//	OUTBOXLAB_NOISE_RUNS=10 go test -count=1 -run TestNoiseRuleRuns -v ./scenarios/workers
func TestNoiseRuleRuns(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("OUTBOXLAB_NOISE_RUNS"))
	if runs <= 0 {
		t.Skip("set OUTBOXLAB_NOISE_RUNS to the number of runs of each case")
	}
	cases := []struct {
		name  string
		args  []string
		label string     // the configuration the sentence is about
		want  difference // what the conclusion must say of it
	}{
		{"a slow handler", []string{"--handler-delay", "5ms"}, "4 workers", faster},
		{"one worker against itself", []string{"--workers", "1,1"}, "1 worker #2", inNoise},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			held := 0
			for i := range runs {
				o := parse(t, append([]string{"--produce-for", "1s"}, tc.args...)...)
				if err := o.Validate(); err != nil {
					t.Fatal(err)
				}
				load := loadAverage()
				dir := t.TempDir()
				start := time.Now()
				r, err := o.Run(context.Background(), scenarios.NewEnv(dir))
				if err != nil {
					t.Fatal(err)
				}
				line := sentence(r.Body(), tc.label)
				if strings.Contains(line, "  "+tc.want.String()+" (") {
					held++
				}
				t.Logf("run %2d  load %s  %s  %s", i+1, load, time.Since(start).Round(10*time.Millisecond), line)
			}
			t.Logf("%s: %q %s in %d of %d runs", tc.name, tc.label, tc.want, held, runs)
			if held != runs {
				t.Errorf("%q %s in %d of %d runs, want all", tc.label, tc.want, held, runs)
			}
		})
	}
}

// sentence is the conclusion's line about the configuration label.
func sentence(body, label string) string {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "  "+label+"  ") {
			return strings.TrimSpace(l)
		}
	}
	return "(no line for " + label + ")"
}

// loadAverage is the machine's 1-minute load, as uptime prints it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
