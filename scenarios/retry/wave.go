package retry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/plot"
	"outboxlab/core/report"
)

// shownConsumers is how many consumers' draws the report shows.
const shownConsumers = 3

// bucketCount is one bucket that saw retries.
type bucketCount struct {
	index int64 // bucket number after the failure
	n     int   // retries in it
}

// wave is the retry moments of many consumers that failed at the same
// instant, counted in buckets: the load the recovering resource sees.
type wave struct {
	jitter   backoff.Jitter
	first    [][]time.Duration // the first consumers' waits, for the report
	latest   []int64           // per retry, the latest moment any consumer made it, ms after the failure
	buckets  []bucketCount     // by index; only buckets with retries
	requests int
	peak     int
	last     int64 // highest bucket index with a retry in it
}

// computeWave is the course's wave(mode, seed): a fresh generator per mode,
// consumers drawing from it in turn, each moment the running sum of waits.
// It keeps one bucket index per retry, so its memory is consumers × attempts
// numbers, whatever the width of the buckets.
func computeWave(j backoff.Jitter, b backoff.Backoff, consumers, attempts int, bucket time.Duration, rand func() float64) wave {
	w := wave{jitter: j, latest: make([]int64, attempts)}
	width := bucket.Milliseconds()
	indices := make([]int64, 0, consumers*attempts)
	for c := 0; c < consumers; c++ {
		waits := b.Waits(j, attempts, rand)
		var at int64
		for i, d := range waits {
			at += d.Milliseconds()
			indices = append(indices, at/width) // moments are never negative: integer division is Math.floor
			if i < len(w.latest) {
				w.latest[i] = max(w.latest[i], at)
			}
		}
		if c < shownConsumers {
			w.first = append(w.first, waits)
		}
	}
	slices.Sort(indices)
	for i, k := range indices {
		if i == 0 || k != indices[i-1] {
			w.buckets = append(w.buckets, bucketCount{index: k})
		}
		w.buckets[len(w.buckets)-1].n++
	}
	for _, bc := range w.buckets {
		w.requests += bc.n
		w.peak = max(w.peak, bc.n)
		w.last = max(w.last, bc.index)
	}
	return w
}

// filled is how many buckets saw at least one retry.
func (w wave) filled() int { return len(w.buckets) }

// chartRows is the height of a drawn wave; each row holds eight levels.
const chartRows = 6

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
		fmt.Sprintf("One scale for every mode: a full column is %s in one %s bucket.", report.Plural(c.top, "retry"), clockText(bucket))}
	return append(lines, c.draw(bucket)...)
}

// series is one row of a chart: the buckets that hold something, by index.
type series struct {
	title   string
	buckets []bucketCount
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
		for _, b := range s.buckets {
			span = max(span, b.index+1)
			top = max(top, b.n)
		}
	}
	per := max((span+chartWidth-1)/chartWidth, 1)
	return chart{all: all, per: per, cols: int((span + per - 1) / per), top: max(top, 1)}
}

// draw renders every series as columns over a shared time axis.
func (c chart) draw(bucket time.Duration) []string {
	var lines []string
	for _, s := range c.all {
		heights := foldBuckets(s.buckets, c.per, c.cols)
		lines = append(lines, "", s.title)
		lines = append(lines, columnRows(heights, c.top)...)
		lines = append(lines, axis(c.cols, c.per, bucket)...)
	}
	return lines
}

// foldBuckets groups buckets per to a column, cols columns, each column the
// busiest bucket in its group.
func foldBuckets(buckets []bucketCount, per int64, cols int) []int {
	heights := make([]int, cols)
	for _, b := range buckets {
		heights[b.index/per] = max(heights[b.index/per], b.n)
	}
	return heights
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

// svgColumns is the most columns the SVG wave draws: one per pixel of its
// plot. A wider wave folds several buckets into one column, as the text
// chart does, so the picture's size does not grow with the number of buckets.
const svgColumns = 800

// waveSVG draws every mode's retries per bucket stacked on one shared scale.
func waveSVG(waves []wave, bucket time.Duration) string {
	var last int64
	for _, w := range waves {
		last = max(last, w.last)
	}
	per := max((last+1+svgColumns-1)/svgColumns, 1)
	cols := int((last + 1 + per - 1) / per)
	panels := make([]plot.Panel, len(waves))
	for i, w := range waves {
		panels[i] = plot.Panel{Title: fmt.Sprintf("%s — peak %d per %s", w.jitter, w.peak, clockText(bucket)),
			Counts: foldBuckets(w.buckets, per, cols)}
	}
	title := fmt.Sprintf("Retries per %s bucket after the failure, one scale for every mode", clockText(bucket))
	if per > 1 {
		title += fmt.Sprintf("; each column the busiest of %d buckets", per)
	}
	return plot.PanelsSVG(title, panels, func(i int) string { return spanText(int64(i) * per * bucket.Milliseconds()) },
		plot.Axes{X: "time after the failure", Y: "retries in the bucket"})
}
