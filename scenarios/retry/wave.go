package retry

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/core/plot"
	"outboxlab/core/report"
	policy "outboxlab/core/retry"
)

// wave is the retry moments of many consumers that failed at the same
// instant, counted in buckets: the load the recovering resource sees.
type wave struct {
	jitter   policy.Jitter
	waits    [][]time.Duration // per consumer, before each retry
	moments  [][]int64         // per consumer, ms after the failure
	buckets  map[int64]int     // bucket index → retries in it
	requests int
	peak     int
	last     int64 // highest bucket index with a retry in it
}

// computeWave is the seed's wave(mode, seed): a fresh generator per mode,
// consumers drawing from it in turn, each moment the running sum of waits.
func computeWave(j policy.Jitter, b policy.Backoff, consumers, attempts int, bucket time.Duration, rand func() float64) wave {
	w := wave{jitter: j, buckets: map[int64]int{}}
	width := bucket.Milliseconds()
	for c := 0; c < consumers; c++ {
		waits := b.Waits(j, attempts, rand)
		moments := make([]int64, len(waits))
		var at int64
		for i, d := range waits {
			at += d.Milliseconds()
			moments[i] = at
			w.buckets[at/width]++ // moments are never negative: integer division is Math.floor
		}
		w.waits = append(w.waits, waits)
		w.moments = append(w.moments, moments)
	}
	for k, n := range w.buckets {
		w.requests += n
		w.peak = max(w.peak, n)
		w.last = max(w.last, k)
	}
	return w
}

// filled is how many buckets saw at least one retry.
func (w wave) filled() int { return len(w.buckets) }

// chartRows is the height of a drawn wave; each row holds eight levels.
const chartRows = 8

// chartWidth is the most columns a drawn wave takes; wider waves fold
// several buckets into one column.
const chartWidth = 80

// drawWaves draws every wave on the same axes: one column per group of
// buckets (its height the busiest bucket in the group), one vertical scale
// whose top is the highest peak of all, so the flattening is visible.
func drawWaves(waves []wave, bucket time.Duration) []string {
	all := make([]series, len(waves))
	for i, w := range waves {
		all[i] = series{title: fmt.Sprintf("%s — peak %d, %d filled buckets, last bucket %d", w.jitter, w.peak, w.filled(), w.last),
			buckets: w.buckets}
	}
	c := newChart(all)
	lines := []string{fmt.Sprintf("Each column is %s = %s; its height is the busiest bucket in it.", report.Plural(c.per, "bucket"), spanText(c.per*bucket.Milliseconds())),
		fmt.Sprintf("One scale for every mode: a full column is %d retries in one %s bucket.", c.top, clockText(bucket))}
	return append(lines, c.draw(bucket)...)
}

// series is one row of a chart: a count per bucket index.
type series struct {
	title   string
	buckets map[int64]int
}

// chart lays several series out on shared axes.
type chart struct {
	all  []series
	per  int64 // buckets per column
	cols int
	top  int // the value of a full column
}

func newChart(all []series) chart {
	var span int64
	top := 0
	for _, s := range all {
		for k, n := range s.buckets {
			span = max(span, k+1)
			top = max(top, n)
		}
	}
	per := max((span+chartWidth-1)/chartWidth, 1)
	return chart{all: all, per: per, cols: int((span + per - 1) / per), top: max(top, 1)}
}

// draw renders every series as columns over a shared time axis.
func (c chart) draw(bucket time.Duration) []string {
	var lines []string
	for _, s := range c.all {
		heights := make([]int, c.cols)
		for k, n := range s.buckets {
			heights[k/c.per] = max(heights[k/c.per], n)
		}
		lines = append(lines, "", s.title)
		lines = append(lines, columnRows(heights, c.top)...)
		lines = append(lines, axis(c.cols, c.per, bucket)...)
	}
	return lines
}

var levels = []rune(" ▁▂▃▄▅▆▇█")

// columnRows draws heights as columns chartRows tall, in eighths of a row,
// rounding up so that a bucket with a single retry still shows.
func columnRows(heights []int, top int) []string {
	eighths := make([]int, len(heights))
	for i, h := range heights {
		eighths[i] = (h*chartRows*8 + top - 1) / top
	}
	var rows []string
	for row := chartRows - 1; row >= 0; row-- {
		var b strings.Builder
		if row == chartRows-1 {
			fmt.Fprintf(&b, "%5d ┤", top)
		} else {
			b.WriteString("      │")
		}
		for _, e := range eighths {
			b.WriteRune(levels[min(max(e-row*8, 0), 8)])
		}
		rows = append(rows, strings.TrimRight(b.String(), " "))
	}
	return rows
}

// axis draws the time axis under a chart: a tick every ten columns, labelled
// where the label fits.
func axis(cols int, per int64, bucket time.Duration) []string {
	line := []rune("    0 └" + strings.Repeat("─", cols))
	labels := []rune(strings.Repeat(" ", 7+cols+8))
	free := 0
	for c := 0; c < cols; c += 10 {
		line[7+c] = '┴'
		text := []rune(spanText(int64(c) * per * bucket.Milliseconds()))
		if at := 7 + c; at >= free {
			copy(labels[at:], text)
			free = at + len(text) + 2
		}
	}
	return []string{string(line), strings.TrimRight(string(labels), " ")}
}

// spanText prints milliseconds in seconds when whole, else in milliseconds.
func spanText(ms int64) string {
	if ms%1000 == 0 {
		return fmt.Sprintf("%d s", ms/1000)
	}
	return fmt.Sprintf("%d ms", ms)
}

// clockText prints a duration the way the course writes one: 100 ms, 2 s, 5 min.
func clockText(d time.Duration) string {
	ms := d.Milliseconds()
	if ms > 0 && ms%60000 == 0 {
		return fmt.Sprintf("%d min", ms/60000)
	}
	return spanText(ms)
}

// waveSVG draws every mode's retries per bucket stacked on one shared scale.
func waveSVG(waves []wave, bucket time.Duration) string {
	var last int64
	for _, w := range waves {
		last = max(last, w.last)
	}
	panels := make([]plot.Panel, len(waves))
	for i, w := range waves {
		counts := make([]int, last+1)
		for k, n := range w.buckets {
			counts[k] = n
		}
		panels[i] = plot.Panel{Title: fmt.Sprintf("%s — peak %d per %s", w.jitter, w.peak, clockText(bucket)), Counts: counts}
	}
	title := fmt.Sprintf("Retries per %s bucket after the failure, one scale for every mode", clockText(bucket))
	return plot.PanelsSVG(title, panels, func(i int) string { return spanText(int64(i) * bucket.Milliseconds()) })
}
