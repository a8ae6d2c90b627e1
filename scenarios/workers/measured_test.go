package workers

import (
	"strings"
	"testing"
	"time"
)

// series is a drain whose rounds of 100 messages took these milliseconds.
func series(ms ...float64) *drainRun {
	d := &drainRun{}
	for _, m := range ms {
		d.rounds = append(d.rounds, roundRun{messages: 100, wall: time.Duration(m * float64(time.Millisecond))})
	}
	return d
}

// The noise rule: a difference counts only when the two series' rounds
// barely mix (at most 9 of 81 pairs the other way, with 9 rounds each) and
// the median round-by-round ratio is beyond noiseRatio.
func TestCompare(t *testing.T) {
	ms := []float64{100, 110, 105, 95, 100, 120, 100, 90, 115}
	scaled := func(f float64, edit func(ms []float64)) *drainRun {
		out := make([]float64, len(ms))
		for i, m := range ms {
			out[i] = m * f
		}
		if edit != nil {
			edit(out)
		}
		return series(out...)
	}
	base := series(ms...)
	tests := []struct {
		name    string
		x       *drainRun
		want    difference
		median  float64
		against float64
	}{
		{"twice as fast, every round", scaled(0.5, nil), faster, 2, 0},
		{"twice as slow", scaled(2, nil), slower, 0.5, 0},
		// A stalled round, slower than every round of the other: 9 pairs against, still told.
		{"one stalled round", scaled(0.5, func(ms []float64) { ms[3] = 500 }), faster, 2, 9},
		// Two: 18 pairs against; two series of one configuration mix that little 5 times in 100.
		{"two stalled rounds", scaled(0.5, func(ms []float64) { ms[3], ms[6] = 500, 500 }), inNoise, 2, 18},
		// 1.1× faster in every round, and base's rounds hardly vary: no mixing, but too small a ratio.
		{"a little faster", series(100/1.1, 100.5/1.1, 99.5/1.1, 100/1.1, 100.2/1.1, 99.8/1.1, 100/1.1, 100.1/1.1, 99.9/1.1),
			inNoise, 1.1, 0},
		{"itself", base, inNoise, 1, 40.5},
		{"five rounds", series(50, 55, 52, 47, 50), untold, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base
			if tt.name == "a little faster" {
				b = series(100, 100.5, 99.5, 100, 100.2, 99.8, 100, 100.1, 99.9)
			}
			if tt.name == "five rounds" {
				b = series(ms[:5]...)
			}
			c := compare(tt.x, b)
			if c.diff != tt.want || c.ratio.median < tt.median-1e-6 || c.ratio.median > tt.median+1e-6 || c.against != tt.against {
				t.Errorf("compare = %s, median %.4f×, %s; want %s, %.4f×, %v against", c.diff, c.ratio.median, c.mixText(),
					tt.want, tt.median, tt.against)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want spread
	}{
		{[]float64{3, 1, 2}, spread{2, 1, 3}},
		{[]float64{4, 1, 3, 2}, spread{2.5, 1, 4}},
		{[]float64{7}, spread{7, 7, 7}},
	} {
		if got := spreadOf(tt.xs); got != tt.want {
			t.Errorf("spreadOf(%v) = %+v, want %+v", tt.xs, got, tt.want)
		}
	}
}

// The conclusion follows the comparisons, not the database's reputation:
// where a run's numbers contradict the lesson, it says what they show.
func TestConclusionFollowsTheNumbers(t *testing.T) {
	cmp := func(median, lo, hi float64, d difference) comparison {
		c := comparison{ratio: spread{median, lo, hi}, diff: d, pairs: 81, allowed: 9}
		switch d {
		case inNoise:
			c.against = 30
		case slower:
			c.against = 2
		}
		return c
	}
	w := func(label string, c comparison) workerFind { return workerFind{label: label, comparison: c} }
	noise, paid := cmp(1.02, 0.8, 1.3, inNoise), cmp(6, 4, 9, faster)
	tests := []struct {
		name     string
		postgres bool
		slow     bool // the handler waits (--handler-delay)
		f        findings
		want     []string // each a line of the conclusion, in order
		not      []string // in no line
	}{
		{"sqlite, one writer", false, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{
				w("2 workers", noise), w("8 workers", cmp(0.4, 0.3, 0.6, slower))}},
			[]string{"Conclusion, from this run's 9 rounds per configuration",
				"  2 workers  1.02× (0.80–1.30×)  inside the noise (30/81 against)",
				"  8 workers  0.40× (0.30–0.60×)  slower (2/81 against)",
				"  More workers made the drain slower.",
				"- Claims of 25 against claims of 1, with 1 worker: 6.00× (4.00–9.00×) (0/81 against).\n  Batching paid.",
				"- SQLite lets one writer in at a time"},
			[]string{"PostgreSQL", "did not pay"}},
		{"sqlite, all inside the noise", false, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("2 workers", noise), w("4 workers", noise)}},
			[]string{"More workers bought nothing this run could tell from the noise."}, []string{"slower."}},
		{"one worker against itself", false, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("1 worker #2", noise)}},
			[]string{"  1 worker #2  1.02× (0.80–1.30×)  inside the noise (30/81 against)"}, nil},
		{"sqlite, a slow handler: workers paid", false, true,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("4 workers", cmp(3.9, 3.5, 4.1, faster))}},
			[]string{"  4 workers  3.90× (3.50–4.10×)  faster (0/81 against)", "More workers paid.", "- More workers paid on SQLite in this run"},
			[]string{"one writer in at a time"}},
		{"sqlite, a handler that does nothing: more workers were faster", false, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("2 workers", cmp(1.5, 1.2, 1.8, faster))}},
			[]string{"- More workers were faster on SQLite in this run, though the handler waits for nothing"},
			[]string{"one writer in at a time", "overlapped what happens"}},
		{"postgres scales", true, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("8 workers", cmp(3.2, 2, 4, faster))}},
			[]string{"More workers paid.", "- PostgreSQL let the workers commit side by side"}, []string{"SQLite"}},
		{"postgres does not scale", true, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("8 workers", noise)}},
			[]string{"- The workers did not scale on this server"}, []string{"side by side"}},
		{"batching inside the noise", false, false,
			findings{batch: 25, first: 1, rounds: 9, batching: noise, workers: []workerFind{w("2 workers", noise)}},
			[]string{"Batching bought nothing this run could tell from the noise.", "- Batching did not pay in this run"}, nil},
		{"too few rounds", false, false,
			findings{batch: 25, first: 1, rounds: 3, batching: cmp(6, 4, 9, untold), workers: []workerFind{w("2 workers", cmp(1, 1, 1, untold))}},
			[]string{"With fewer than 6 rounds nothing is told apart (--repeats 6 or more).",
				"  2 workers  1.00× (1.00–1.00×)  too few rounds to tell", "Whether more workers paid, these rounds cannot tell.",
				"Whether batching paid, these rounds cannot tell."},
			[]string{"did not pay", "SQLite lets"}},
		{"one worker count", false, false, findings{batch: 25, first: 2, rounds: 9, batching: paid},
			[]string{"- Claims of 25 against claims of 1, with 2 workers: 6.00× (4.00–9.00×) (0/81 against).\n  Batching paid."},
			[]string{"Claims of 1,", "one writer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := conclusion(backend{serial: !tt.postgres}, tt.slow, tt.f)
			text := strings.Join(lines, "\n")
			at := 0
			for _, want := range tt.want {
				i := strings.Index(text[at:], want)
				if i < 0 {
					t.Errorf("conclusion lacks %q after what came before:\n%s", want, text)
					continue
				}
				at += i + len(want)
			}
			for _, not := range tt.not {
				if strings.Contains(text, not) {
					t.Errorf("conclusion says %q:\n%s", not, text)
				}
			}
			for _, l := range lines {
				if n := len([]rune(l + " [measured]")); n > 100 {
					t.Errorf("%d columns with its mark: %q", n, l)
				}
			}
		})
	}
}

// allowedAgainst is the Mann–Whitney count's two-sided critical value at
// noiseChance, against the exact counts (9 of 81 pairs with 9 rounds each:
// 0.399% of the orders; 10 would be 0.564%).
func TestAllowedAgainst(t *testing.T) {
	for _, tt := range []struct{ n, m, want int }{{9, 9, 9}, {7, 7, 3}, {6, 6, 1}, {5, 5, -1}, {11, 11, 18}, {1, 1, -1}} {
		if got := allowedAgainst(tt.n, tt.m); got != tt.want {
			t.Errorf("allowedAgainst(%d, %d) = %d, want %d", tt.n, tt.m, got, tt.want)
		}
	}
}
