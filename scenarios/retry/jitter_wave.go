package retry

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/jsrand"
	"outboxlab/core/plot"
	"outboxlab/core/report"
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

The draws come from the course's fixed-seed generator computed in JavaScript's
double arithmetic, so the default flags print the course's numbers to the digit,
and any other flags print what the course's script prints for them. This
experiment is arithmetic on schedules: it writes no database.`,
		Example: `  outboxlab jitter-wave
  outboxlab jitter-wave --seed 7 --consumers 1000    # another draw, a bigger crowd
  outboxlab jitter-wave --cap 2s --attempts 8        # a low cap squeezes decorrelated jitter`,
		// A cap no higher than the base leaves decorrelated jitter nothing to draw:
		// every wait is the cap, the unjittered schedule's, and it neither
		// lowers the peak nor spreads the wave.
		FailsWith: []string{"--cap", "500ms"},
		// One consumer is no crowd: there is no wave for jitter to flatten.
		NotExercisedWith: []string{"--consumers", "1"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindJitterWave(fs) },
	})
}

// jitterWaveOptions are the experiment's parameters; the defaults are the course's.
type jitterWaveOptions struct {
	scenarios.Declared
	Consumers int
	Attempts  int
	Bucket    time.Duration
	Base      time.Duration
	Cap       time.Duration
	Seed      int64
}

// bindJitterWave declares the flags. --cap may be below --base: the
// course's script then computes every wait from the cap (Math.min), and so
// does the lab.
func bindJitterWave(fs *pflag.FlagSet) *jitterWaveOptions {
	o := &jitterWaveOptions{}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Consumers, "consumers", 200, 1, jitterMaxConsumers, "consumers that fail at the same instant")
	f.Int(&o.Attempts, "attempts", 4, 1, jitterMaxAttempts, "retries per consumer")
	f.Int64(&o.Seed, "seed", 20250720, 0, jsrand.MaxSeed, "seed of the fixed-seed generator (0 to 2^53-1)")
	f.Duration(&o.Bucket, "bucket", 100*time.Millisecond, time.Millisecond, time.Hour, "width of the buckets retries are counted in (whole ms)")
	f.Duration(&o.Base, "base", 500*time.Millisecond, time.Millisecond, time.Hour,
		"backoff before the first retry; doubles each retry (whole ms)")
	f.Duration(&o.Cap, "cap", 30*time.Second, time.Millisecond, time.Hour, "upper bound on any wait, even below --base (whole ms)")
	return o
}

// The run draws --consumers × --attempts retries per mode, twice (the lab's
// wave and the reference run): at most 10000 × 50, half a million, which
// takes about a second and some 50 MB. The buckets cost nothing more: only
// those with retries are kept, and the pictures fold them to a fixed width.
const (
	jitterMaxConsumers = 10000
	jitterMaxAttempts  = 50
)

func (o *jitterWaveOptions) Validate() error { return o.CheckDeclared() }

// Run computes each mode's wave with the lab's jitter, then runs the course's
// loop again, written apart, for the checks to read: the table is the lab's,
// the properties are judged on the reference, and a check holds the two equal.
func (o *jitterWaveOptions) Run(_ context.Context, _ scenarios.Env) (*report.Report, error) {
	waves, ref, diffs := o.waves(nil)
	return o.render(waves, ref, diffs), nil
}

// waves computes the lab's wave of each mode and the reference run's numbers
// beside it, with how the two differ ("" for not at all). A test's tamper,
// when set, changes the lab's wave of mode i before it is compared.
func (o *jitterWaveOptions) waves(tamper func(i int, w *wave)) (waves []wave, ref []waveMetrics, diffs []string) {
	b := backoff.Backoff{Base: o.Base, Cap: o.Cap}
	waves = make([]wave, len(backoff.Jitters))
	ref = make([]waveMetrics, len(backoff.Jitters))
	diffs = make([]string, len(backoff.Jitters))
	for i, j := range backoff.Jitters {
		waves[i] = computeWave(j, b, o.Consumers, o.Attempts, o.Bucket, jsrand.New(o.Seed).Next)
		if tamper != nil {
			tamper(i, &waves[i])
		}
		ref[i], diffs[i] = referenceWave(j, o, waves[i])
	}
	return waves, ref, diffs
}

func (o *jitterWaveOptions) render(waves []wave, ref []waveMetrics, diffs []string) *report.Report {
	r := report.New(jitterWave, report.Experiment)
	crowd := report.Plural(o.Consumers, "consumer") + " fail"
	if o.Consumers == 1 {
		crowd += "s"
	}
	r.Title(fmt.Sprintf("Jitter wave — EXPERIMENT: %s at the same instant", crowd))
	r.Linef("Scenario   %s (EXPERIMENT; the course's jitter.mjs)", jitterWave)
	r.Linef("Source     %s", scenarios.Source("retry"))
	r.Linef("Setup      %s at the same instant; each retries %s;", crowd, report.Plural(o.Attempts, "time"))
	r.Linef("           backoff %s × 2^(n-1), capped at %s", clockText(o.Base), clockText(o.Cap))
	r.Line("Jitter     full: Math.round(rand() × backoff);")
	r.Line("           decorrelated: min(cap, Math.round(base + rand() × (previous × 3 − base)))")
	r.Linef("Generator  x = (x × 1103515245 + 12345) %% 2^31 in IEEE doubles, seed %d;", o.Seed)
	r.Line("           a fresh generator per mode, consumers draw in turn")
	r.Linef("Buckets    every retry moment counted in %s buckets after the failure;", clockText(o.Bucket))
	r.Line("           nothing sleeps, no database")

	r.Section("The retry wave (the course's table)")
	names := make([]string, len(waves))
	for i, w := range waves {
		names[i] = w.jitter.String()
	}
	metricRows(r, "schedule", o.waveMetrics(), names, waves)

	r.Section("The wave, drawn (retries per bucket after the failure)")
	for _, l := range drawWaves(waves, o.Bucket) {
		r.Line(l)
	}
	r.Figure(plot.SVGOnly("wave", "The retry wave", waveSVG(waves, o.Bucket)))

	r.Section("Where the numbers come from: the first consumers")
	o.writeFirstConsumers(r, waves)

	o.checks(r, waves, ref, diffs)
	judgement{title: seedChecks, pass: "JITTER FLATTENS THE WAVE — SAME LOAD, LOWER PEAK, LONGER SPREAD",
		fail: "THE COURSE'S PROPERTIES DID NOT HOLD FOR THESE FLAGS"}.
		write(r, func(failed map[string]bool) []string { return o.whyFailed(failed, ref) })
	for _, w := range waves {
		recordMetricsOf(r, o.waveMetrics(), jitterKeys[w.jitter], w)
	}
	return r
}

// waveMetrics declare the course's table once: its columns, one row per mode,
// and their JSON metrics (peak_full_jitter).
func (o *jitterWaveOptions) waveMetrics() []scenarios.Metric[wave] {
	return []scenarios.Metric[wave]{
		{Label: "total requests", Key: "requests", Value: func(w wave) any { return w.requests }},
		{Label: "peak per " + clockText(o.Bucket), Key: "peak", Value: func(w wave) any { return w.peak }},
		{Label: "filled buckets", Key: "filled_buckets", Value: func(w wave) any { return w.filled() }},
		{Label: "last bucket", Key: "last_bucket", Value: func(w wave) any { return w.last }},
	}
}

// jitterKeys name each mode in JSON metric keys.
var jitterKeys = map[backoff.Jitter]string{
	backoff.NoJitter: "no_jitter", backoff.FullJitter: "full_jitter", backoff.DecorrelatedJitter: "decorrelated_jitter",
}

// writeFirstConsumers shows the draws behind the table for the first three
// consumers, so a student can redo the arithmetic by hand.
func (o *jitterWaveOptions) writeFirstConsumers(r *report.Report, waves []wave) {
	var rows [][]string
	for _, w := range waves {
		for c, waits := range w.first {
			moments := make([]int64, len(waits))
			buckets := make([]string, len(waits))
			var at int64
			for i, d := range waits {
				at += d.Milliseconds()
				moments[i] = at
				buckets[i] = strconv.FormatInt(at/o.Bucket.Milliseconds(), 10)
			}
			rows = append(rows, []string{w.jitter.String(), strconv.Itoa(c + 1), firstOf(joinMillis(waits)),
				firstOf(joinInt64s(moments)), firstOf(strings.Join(buckets, ", "))})
		}
	}
	r.Table([]string{"schedule", "#", "waits (ms)", "retry moments (ms)", "buckets"}, rows)
}

// checks holds the lab's waves to two independent computations (a reference
// run of the course's loop, and the unjittered schedule's own sums), then
// judges the course's properties on the reference run's numbers.
func (o *jitterWaveOptions) checks(r *report.Report, waves []wave, ref []waveMetrics, diffs []string) {
	detail := fmt.Sprintf("%s retries in %s buckets",
		joinMetrics(ref, func(f waveMetrics) int64 { return int64(f.requests) }),
		joinMetrics(ref, func(f waveMetrics) int64 { return int64(f.filled) }))
	same := true
	for i, d := range diffs {
		if d != "" {
			same, detail = false, waves[i].jitter.String()+": "+d
			break
		}
	}
	r.Invariant(checkWaveReference, same, detail)

	schedule := scheduleBuckets(o)
	if d := diffCounts(waves[0].buckets, schedule); d != "" {
		r.Check(checkWaveSameBucket, false, d+" (the schedule's sums)")
	} else {
		r.Check(checkWaveSameBucket, true,
			fmt.Sprintf("all %d in buckets %s, where the schedule's sums fall", o.Consumers, bucketList(schedule)))
	}

	none, full, dec := ref[0], ref[1], ref[2]
	if o.Consumers == 1 {
		// Jitter pulls a crowd's retries apart; one consumer's are apart already.
		why := "one consumer is no crowd: there is no wave of retries made together for jitter to " +
			"flatten; raise --consumers"
		r.NotExercised(checkFullLowers, why)
		r.NotExercised(checkDecorrelatedLowers, why)
	} else {
		r.Check(checkFullLowers, full.peak < none.peak,
			fmt.Sprintf("%d < %d", full.peak, none.peak))
		r.Check(checkDecorrelatedLowers, dec.peak < none.peak,
			fmt.Sprintf("%d < %d", dec.peak, none.peak))
	}
	// Full jitter draws each wait between 0 and the schedule's: the lab's
	// wave, retry by retry, against the schedule's own sums.
	later := ""
	for n, at := range scheduleMoments(o) {
		if n < len(waves[1].latest) && waves[1].latest[n] > at {
			later = fmt.Sprintf("retry %d at %d ms, after the schedule's %d ms", n+1, waves[1].latest[n], at)
			break
		}
	}
	if later == "" {
		r.Check(checkFullNotLater, full.last <= none.last,
			fmt.Sprintf("last bucket %d ≤ %d; no retry after its unjittered moment", full.last, none.last))
	} else {
		r.Check(checkFullNotLater, false, later)
	}
	r.Check(checkDecorrelatedSpread, dec.last > none.last,
		fmt.Sprintf("last bucket %d > %d", dec.last, none.last))
}

// The experiment's checks, by name.
const (
	checkWaveReference      = "each wave equals a reference run of jitter.mjs"
	checkWaveSameBucket     = "without jitter every consumer retries in the same bucket"
	checkFullLowers         = "full jitter lowers the peak"
	checkDecorrelatedLowers = "decorrelated jitter lowers the peak"
	checkFullNotLater       = "full jitter never retries later than no jitter"
	checkDecorrelatedSpread = "decorrelated jitter pays with a longer spread"
)

func joinMetrics(fs []waveMetrics, of func(waveMetrics) int64) string {
	xs := make([]int64, len(fs))
	for i, f := range fs {
		xs[i] = of(f)
	}
	return strings.ReplaceAll(joinInt64s(xs), ", ", " / ")
}

// whyFailed says what these flags did to the checks that failed.
func (o *jitterWaveOptions) whyFailed(failed map[string]bool, ref []waveMetrics) []string {
	none, dec := ref[0], ref[2]
	var why []string
	if failed[checkWaveReference] || failed[checkWaveSameBucket] ||
		failed[checkFullNotLater] {
		why = append(why, "no flag makes the lab's wave differ from the course's loop: its jitter or its bucket count is wrong")
	}
	if none.last == 0 && (failed[checkFullLowers] || failed[checkDecorrelatedLowers] || failed[checkDecorrelatedSpread]) {
		return append(why, fmt.Sprintf("the %s bucket is wider than the schedule: without jitter every retry falls in bucket 0,\n"+
			"and the jittered retries, never later, stay there too", clockText(o.Bucket)))
	}
	if o.Cap <= o.Base && (failed[checkDecorrelatedLowers] || failed[checkDecorrelatedSpread]) {
		why = append(why, fmt.Sprintf("--cap %s is not above --base %s: every decorrelated wait is capped at %s,\n"+
			"which is exactly the unjittered schedule, so it neither lowers the peak nor ends later",
			clockText(o.Cap), clockText(o.Base), clockText(o.Cap)))
		delete(failed, checkDecorrelatedLowers)
		delete(failed, checkDecorrelatedSpread)
	}
	if failed[checkFullLowers] || failed[checkDecorrelatedLowers] {
		why = append(why, fmt.Sprintf("jitter did not thin the busiest bucket: %d retries without jitter, %d with full",
			none.peak, ref[1].peak)+
			fmt.Sprintf("\nand %d with decorrelated jitter: %s buckets are too coarse for %d consumers on this schedule",
				dec.peak, clockText(o.Bucket), o.Consumers))
	}
	if failed[checkDecorrelatedSpread] {
		why = append(why, fmt.Sprintf("once the schedule reaches the --cap of %s every unjittered wait is the cap, while",
			clockText(o.Cap))+
			fmt.Sprintf("\ndecorrelated waits are drawn below it: its retries end in bucket %d, not after %d", dec.last, none.last))
	}
	return why
}
