package backoff

import (
	"fmt"
	"testing"
	"time"

	"outboxlab/core/jsrand"
)

func millis(ds []time.Duration) string {
	out := make([]int64, len(ds))
	for i, d := range ds {
		out[i] = d.Milliseconds()
	}
	return fmt.Sprint(out)
}

// The want values were printed by node v20 running the seed's jitter.mjs
// loop; consumers draw in turn from one generator, as in the seed.
func TestWaitsMatchTheSeedsJavaScript(t *testing.T) {
	tests := []struct {
		name    string
		backoff Backoff
		jitter  Jitter
		seed    int64
		n       int
		want    []string // one consumer per entry
	}{
		{"no jitter", Backoff{Base: 500 * ms, Cap: 30 * time.Second}, NoJitter, 20250720, 4,
			[]string{"[500 1000 2000 4000]", "[500 1000 2000 4000]"}},
		{"full jitter", Backoff{Base: 500 * ms, Cap: 30 * time.Second}, FullJitter, 20250720, 4,
			[]string{"[328 873 1273 3279]", "[480 629 920 3187]", "[295 604 749 1060]"}},
		{"decorrelated", Backoff{Base: 500 * ms, Cap: 30 * time.Second}, DecorrelatedJitter, 20250720, 4,
			[]string{"[1156 3092 6086 15058]", "[1460 2939 4324 10436]", "[1091 2175 2757 2560]"}},
		{"decorrelated under a 3 s cap", Backoff{Base: 500 * ms, Cap: 3 * time.Second}, DecorrelatedJitter, 20250720, 8,
			[]string{"[1156 3000 3000 3000 3000 3000 3000 3000]", "[1091 2175 2757 2560 525 1495 3000 3000]"}},
		{"full jitter, other flags", Backoff{Base: 300 * ms, Cap: 5 * time.Second}, FullJitter, 1, 7,
			[]string{"[154 105 186 351 1367 4645 44]", "[267 83 271 671 3811 2044 2721]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := jsrand.New(tt.seed)
			for c, want := range tt.want {
				if got := millis(tt.backoff.Waits(tt.jitter, tt.n, g.Next)); got != want {
					t.Errorf("consumer %d: Waits(%v, %d) = %s, want %s", c+1, tt.jitter, tt.n, got, want)
				}
			}
		})
	}
}

func TestNoJitterDrawsNothing(t *testing.T) {
	draws := 0
	Backoff{Base: 500 * ms}.Waits(NoJitter, 4, func() float64 { draws++; return 0.5 })
	if draws != 0 {
		t.Errorf("NoJitter drew %d numbers, want 0: a draw would shift every later consumer", draws)
	}
}

func TestFullJitterStaysWithinTheBackoff(t *testing.T) {
	b := Backoff{Base: 500 * ms, Cap: 30 * time.Second}
	for _, r := range []float64{0, 0.999999999} {
		waits := b.Waits(FullJitter, 8, func() float64 { return r })
		for i, w := range waits {
			if w < 0 || w > b.Delay(i+1) {
				t.Errorf("rand %v: wait %d = %v, want within [0, %v]", r, i+1, w, b.Delay(i+1))
			}
		}
	}
}
