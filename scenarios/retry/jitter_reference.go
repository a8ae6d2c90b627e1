package retry

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/backoff"
	"outboxlab/core/jsrand"
)

// waveMetrics are what the course's table prints for one mode.
type waveMetrics struct {
	requests, peak, filled int
	last                   int64
}

// referenceWave is the course's jitter.mjs for one mode, written apart from
// core/backoff's Waits and from computeWave so that a check can hold them to
// it: the course's formulas on JavaScript numbers (milliseconds as doubles),
// the course's generator, and a Map from bucket to count, as the script keeps.
// It returns the table's metrics and, when w's buckets differ from the
// script's, the first difference.
func referenceWave(j backoff.Jitter, o *jitterWaveOptions, w wave) (waveMetrics, string) {
	g := jsrand.New(o.Seed)
	base, ceiling, width := float64(o.Base.Milliseconds()), float64(o.Cap.Milliseconds()), float64(o.Bucket.Milliseconds())
	counts := map[int64]int{}
	for c := 0; c < o.Consumers; c++ {
		t, previous := 0.0, base
		for n := 1; n <= o.Attempts; n++ {
			ceil := math.Min(ceiling, base*math.Pow(2, float64(n-1)))
			wait := ceil
			switch j {
			case backoff.FullJitter:
				wait = jsrand.Round(float64(g.Next() * ceil))
			case backoff.DecorrelatedJitter:
				previous = math.Min(ceiling, jsrand.Round(base+float64(g.Next()*(previous*3-base))))
				wait = previous
			}
			t += wait
			counts[int64(math.Floor(t/width))]++
		}
	}
	var f waveMetrics
	for k, n := range counts {
		f.requests += n
		f.peak = max(f.peak, n)
		f.last = max(f.last, k)
	}
	f.filled = len(counts)
	return f, diffCounts(w.buckets, counts)
}

// diffCounts names the first bucket, in time order, where got and want
// disagree, or "" when they hold the same retries.
func diffCounts(got []bucketCount, want map[int64]int) string {
	keys := sortedKeys(want)
	for i := 0; i < max(len(got), len(keys)); i++ {
		switch {
		case i >= len(got) || (i < len(keys) && keys[i] < got[i].index):
			return fmt.Sprintf("bucket %d holds 0 retries, the reference %d", keys[i], want[keys[i]])
		case want[got[i].index] != got[i].n:
			return fmt.Sprintf("bucket %d holds %d retries, the reference %d", got[i].index, got[i].n, want[got[i].index])
		}
	}
	return ""
}

func sortedKeys(counts map[int64]int) []int64 {
	keys := make([]int64, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// scheduleMoments are the unjittered schedule's retry moments: retry n at
// d1 + … + dn ms after the failure, dk = min(cap, base × 2^(k-1)), counted in
// whole milliseconds without overflow.
func scheduleMoments(o *jitterWaveOptions) []int64 {
	out := make([]int64, o.Attempts)
	d, ceiling, at := o.Base.Milliseconds(), o.Cap.Milliseconds(), int64(0)
	for n := range out {
		at += min(d, ceiling)
		if d < ceiling {
			d *= 2
		}
		out[n] = at
	}
	return out
}

// scheduleBuckets is where the unjittered schedule puts every retry: retry n
// of every consumer in the bucket of its moment.
func scheduleBuckets(o *jitterWaveOptions) map[int64]int {
	out := map[int64]int{}
	for _, at := range scheduleMoments(o) {
		out[at/o.Bucket.Milliseconds()] += o.Consumers
	}
	return out
}

// bucketList prints a bucket map's indices in order, shortened.
func bucketList(counts map[int64]int) string {
	keys := sortedKeys(counts)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strconv.FormatInt(k, 10)
	}
	return firstOf(strings.Join(parts, ", "))
}
