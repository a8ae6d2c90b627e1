package retry

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/jsrand"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	policy "outboxlab/core/retry"
	"outboxlab/scenarios"
)

const jitterWave = "jitter-wave"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    jitterWave,
		Family:  "retry",
		Kind:    report.Experiment,
		Summary: "200 consumers fail at once: the retry wave with no jitter, full jitter and decorrelated jitter",
		Long: `The course's jitter experiment. Consumers that fail at the same instant and
share one backoff schedule retry at the same instants: the recovering resource
meets wave after wave. Full jitter draws each wait between 0 and the backoff;
decorrelated jitter between the base and three times the previous wait. The
run counts every retry moment in fixed buckets and prints, per mode, the total
requests, the busiest bucket, how many buckets were hit and the last one, then
draws the three waves on the same axes.

The draws come from the seed's fixed-seed generator computed in JavaScript's
double arithmetic, so the default flags print the seed's numbers to the digit,
and any other flags print what the seed's script prints for them. This
experiment is arithmetic on schedules: it writes no database.`,
		Example: `  outboxlab jitter-wave
  outboxlab jitter-wave --seed 7 --consumers 1000    # another draw, a bigger crowd
  outboxlab jitter-wave --cap 2s --attempts 8        # a low cap squeezes decorrelated jitter
  outboxlab jitter-wave --consumers 1                # one consumer: nothing to flatten, checks fail`,
		Bind: func(fs *pflag.FlagSet) scenarios.Options { return bindJitterWave(fs) },
	})
}

// jitterWaveOptions are the experiment's parameters; the defaults are the seed's.
type jitterWaveOptions struct {
	Consumers int
	Attempts  int
	Bucket    time.Duration
	Base      time.Duration
	Cap       time.Duration
	Seed      int64
}

func bindJitterWave(fs *pflag.FlagSet) *jitterWaveOptions {
	o := &jitterWaveOptions{}
	fs.IntVar(&o.Consumers, "consumers", 200, "consumers that fail at the same instant")
	fs.IntVar(&o.Attempts, "attempts", 4, "retries per consumer")
	fs.DurationVar(&o.Bucket, "bucket", 100*time.Millisecond, "width of the buckets retries are counted in (whole ms)")
	fs.DurationVar(&o.Base, "base", 500*time.Millisecond, "backoff before the first retry; doubles each retry (whole ms)")
	fs.DurationVar(&o.Cap, "cap", 30*time.Second, "upper bound on any wait (whole ms)")
	fs.Int64Var(&o.Seed, "seed", 20250720, "seed of the fixed-seed generator (0 to 2^53-1)")
	return o
}

func (o *jitterWaveOptions) Validate() error {
	switch {
	case o.Consumers < 1 || o.Consumers > 10000:
		return fmt.Errorf("--consumers must be between 1 and 10000, got %d", o.Consumers)
	case o.Attempts < 1 || o.Attempts > 100:
		return fmt.Errorf("--attempts must be between 1 and 100, got %d", o.Attempts)
	case o.Seed < 0 || o.Seed > jsrand.MaxSeed:
		return fmt.Errorf("--seed must be between 0 and %d, got %d", int64(jsrand.MaxSeed), o.Seed)
	}
	if err := wholeMillis(
		millisFlag{"--bucket", o.Bucket, time.Millisecond, time.Hour},
		millisFlag{"--base", o.Base, time.Millisecond, time.Hour},
		millisFlag{"--cap", o.Cap, time.Millisecond, time.Hour},
	); err != nil {
		return err
	}
	return capNotBelowBase("--cap", o.Cap, "--base", o.Base)
}

func (o *jitterWaveOptions) Run(_ context.Context, _ scenarios.Env) (*report.Report, error) {
	b := policy.Backoff{Base: o.Base, Cap: o.Cap}
	waves := make([]wave, len(policy.Jitters))
	for i, j := range policy.Jitters {
		waves[i] = computeWave(j, b, o.Consumers, o.Attempts, o.Bucket, jsrand.New(o.Seed).Next)
	}
	return o.render(waves), nil
}

func (o *jitterWaveOptions) render(waves []wave) *report.Report {
	r := report.New(jitterWave, report.Experiment)
	r.Title(fmt.Sprintf("Jitter wave — EXPERIMENT: %d consumers fail at the same instant", o.Consumers))
	r.Linef("Scenario   %s (EXPERIMENT; the course's jitter.mjs)", jitterWave)
	r.Linef("Setup      %d consumers fail at the same instant; each retries %d times; backoff %s × 2^(n-1), capped at %s",
		o.Consumers, o.Attempts, clockText(o.Base), clockText(o.Cap))
	r.Line("Jitter     full: Math.round(rand() × backoff); decorrelated: min(cap, Math.round(base + rand() × (previous × 3 − base)))")
	r.Linef("Generator  x = (x × 1103515245 + 12345) %% 2^31 in IEEE doubles, seed %d; a fresh generator per mode, consumers draw in turn", o.Seed)
	r.Linef("Buckets    every retry moment counted in %s buckets after the failure; nothing sleeps, no database", clockText(o.Bucket))

	r.Section("The retry wave (the seed's table)")
	per := "peak per " + clockText(o.Bucket)
	rows := make([][]string, len(waves))
	for i, w := range waves {
		rows[i] = []string{w.jitter.String(), strconv.Itoa(w.requests), strconv.Itoa(w.peak),
			strconv.Itoa(w.filled()), strconv.FormatInt(w.last, 10)}
	}
	r.Table([]string{"schedule", "total requests", per, "filled buckets", "last bucket"}, rows)

	r.Section("The wave, drawn (retries per bucket after the failure)")
	for _, l := range drawWaves(waves, o.Bucket) {
		r.Line(l)
	}
	r.Figure(plot.SVGOnly("wave", "The retry wave", waveSVG(waves, o.Bucket)))

	r.Section("Where the numbers come from: the first consumers")
	o.writeFirstConsumers(r, waves)

	o.checks(r, waves)
	r.Checks("Checks (the properties the seed states)")
	r.Verdict("JITTER FLATTENS THE WAVE — SAME LOAD, LOWER PEAK, LONGER SPREAD ✅",
		"THE SEED'S PROPERTIES DID NOT HOLD FOR THESE FLAGS — SEE THE FAILED CHECKS ⚠️")
	for _, w := range waves {
		key := strings.ReplaceAll(w.jitter.String(), " ", "_")
		r.Metric("requests_"+key, w.requests)
		r.Metric("peak_"+key, w.peak)
		r.Metric("filled_buckets_"+key, w.filled())
		r.Metric("last_bucket_"+key, w.last)
	}
	return r
}

// writeFirstConsumers shows the draws behind the table for the first three
// consumers, so a student can redo the arithmetic by hand.
func (o *jitterWaveOptions) writeFirstConsumers(r *report.Report, waves []wave) {
	var rows [][]string
	for _, w := range waves {
		for c := 0; c < min(3, o.Consumers); c++ {
			buckets := make([]string, len(w.moments[c]))
			for i, m := range w.moments[c] {
				buckets[i] = strconv.FormatInt(m/o.Bucket.Milliseconds(), 10)
			}
			rows = append(rows, []string{w.jitter.String(), strconv.Itoa(c + 1), firstOf(joinMillis(w.waits[c])),
				firstOf(joinInt64s(w.moments[c])), firstOf(strings.Join(buckets, ", "))})
		}
	}
	r.Table([]string{"schedule", "consumer", "waits (ms)", "retry moments (ms)", "buckets"}, rows)
}

func (o *jitterWaveOptions) checks(r *report.Report, waves []wave) {
	none, full, dec := waves[0], waves[1], waves[2]
	want := o.Consumers * o.Attempts
	r.Check("total requests equal across modes",
		none.requests == want && full.requests == want && dec.requests == want,
		fmt.Sprintf("%d / %d / %d (= %d consumers × %d retries)", none.requests, full.requests, dec.requests, o.Consumers, o.Attempts))
	r.Check("without jitter every consumer retries in the same bucket",
		none.peak%o.Consumers == 0 && none.filled() <= o.Attempts,
		fmt.Sprintf("peak %d for %d consumers, %d filled buckets for %d retries", none.peak, o.Consumers, none.filled(), o.Attempts))
	r.Check("full jitter lowers the peak", full.peak < none.peak,
		fmt.Sprintf("%d < %d", full.peak, none.peak))
	r.Check("decorrelated jitter lowers the peak", dec.peak < none.peak,
		fmt.Sprintf("%d < %d", dec.peak, none.peak))
	r.Check("full jitter never retries later than no jitter", full.last <= none.last,
		fmt.Sprintf("last bucket %d ≤ %d", full.last, none.last))
	r.Check("decorrelated jitter pays with a longer spread", dec.last > none.last,
		fmt.Sprintf("last bucket %d > %d", dec.last, none.last))
}
