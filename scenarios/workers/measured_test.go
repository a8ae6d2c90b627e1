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

// The noise rule: a difference counts only when every round's ratio is on
// one side of 1 and the median ratio is beyond noiseRatio.
func TestCompare(t *testing.T) {
	base := series(100, 200, 100, 400, 100, 100, 300, 100, 100)
	tests := []struct {
		name   string
		x      *drainRun
		want   difference
		median float64
	}{
		// Half the time of the same round: 2× every round, however much the rounds vary.
		{"twice as fast, every round", series(50, 100, 50, 200, 50, 50, 150, 50, 50), faster, 2},
		{"twice as slow", series(200, 400, 200, 800, 200, 200, 600, 200, 200), slower, 0.5},
		// 2× in eight rounds, slower in one: the rounds disagree.
		{"one round the other way", series(50, 100, 50, 200, 50, 50, 150, 50, 101), inNoise, 2},
		// Faster in every round, but by 1.1×: too small to be a finding.
		{"a little faster, every round", series(100/1.1, 200/1.1, 100/1.1, 400/1.1, 100/1.1, 100/1.1, 300/1.1, 100/1.1, 100/1.1),
			inNoise, 1.1},
		// The same rounds: not faster, whatever the spread of the rounds.
		{"itself", base, inNoise, 1},
		{"four rounds", series(50, 100, 50, 200), untold, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compare(tt.x, base)
			if c.diff != tt.want || c.ratio.median < tt.median-1e-6 || c.ratio.median > tt.median+1e-6 {
				t.Errorf("compare = %s, median %.4f×; want %s, %.4f×", c.diff, c.ratio.median, tt.want, tt.median)
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
		return comparison{ratio: spread{median, lo, hi}, diff: d}
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
				"  2 workers  1.02× (0.80–1.30×)  inside the noise",
				"  8 workers  0.40× (0.30–0.60×)  slower",
				"  More workers made the drain slower.",
				"- Claims of 25 against claims of 1, with 1 worker: 6.00× (4.00–9.00×).\n  Batching paid.",
				"- SQLite lets one writer in at a time"},
			[]string{"PostgreSQL", "did not pay"}},
		{"sqlite, all inside the noise", false, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("2 workers", noise), w("4 workers", noise)}},
			[]string{"More workers bought nothing this run could tell from the noise."}, []string{"slower."}},
		{"one worker against itself", false, false,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("1 worker #2", noise)}},
			[]string{"  1 worker #2  1.02× (0.80–1.30×)  inside the noise"}, nil},
		{"sqlite, a slow handler: workers paid", false, true,
			findings{batch: 25, first: 1, rounds: 9, batching: paid, workers: []workerFind{w("4 workers", cmp(3.9, 3.5, 4.1, faster))}},
			[]string{"  4 workers  3.90× (3.50–4.10×)  faster", "More workers paid.", "- More workers paid on SQLite in this run"},
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
			[]string{"With fewer than 5 rounds nothing is told apart (--repeats 5 or more).",
				"  2 workers  1.00× (1.00–1.00×)  too few rounds to tell", "Whether more workers paid, these rounds cannot tell.",
				"Whether batching paid, these rounds cannot tell."},
			[]string{"did not pay", "SQLite lets"}},
		{"one worker count", false, false, findings{batch: 25, first: 2, rounds: 9, batching: paid},
			[]string{"- Claims of 25 against claims of 1, with 2 workers: 6.00× (4.00–9.00×).\n  Batching paid."},
			[]string{"Claims of 1,", "one writer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := conclusion(backend{postgres: tt.postgres}, tt.slow, tt.f)
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
