package jsrand

import (
	"math"
	"testing"
)

// FuzzNext draws from any seed the generator accepts (0 to MaxSeed; other
// seeds are folded into that range): every draw is a number in [0, 1),
// never NaN, and the same seed draws the same sequence again.
//
//	go test ./core/jsrand -run '^$' -fuzz '^FuzzNext$' -fuzztime 5s
func FuzzNext(f *testing.F) {
	for _, seed := range []int64{20250720, 0, 1, 2147483647, 2147483648, MaxSeed, MaxSeed - 1, 1 << 31 * 12345} {
		f.Add(seed, uint16(1000))
	}
	f.Fuzz(func(t *testing.T, seed int64, draws uint16) {
		seed &= MaxSeed // the documented range; MaxSeed is 2^53-1, all ones
		n := int(draws%4096) + 1
		g, again := New(seed), New(seed)
		for i := 1; i <= n; i++ {
			v := g.Next()
			if math.IsNaN(v) || v < 0 || v >= 1 {
				t.Fatalf("seed %d: draw %d = %v, want a number in [0, 1)", seed, i, v)
			}
			if w := again.Next(); w != v {
				t.Fatalf("seed %d: draw %d = %v, then %v from a second generator", seed, i, v, w)
			}
		}
	})
}

// FuzzRound compares Round with JavaScript's Math.round as its spec states
// it: the integer closest to v, halves going towards +∞. The reference is
// built on math.Round (halves away from zero), so the two are written apart.
//
//	go test ./core/jsrand -run '^$' -fuzz '^FuzzRound$' -fuzztime 5s
func FuzzRound(f *testing.F) {
	for _, v := range []float64{0, 0.5, -0.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
		4503599627370495.5, -4503599627370495.5, 1e300, math.Inf(1), math.NaN(), 0.6557189337909222 * 800} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		got := Round(v)
		want := math.Round(v)
		if v-want == 0.5 { // a negative half: math.Round went away from zero, JavaScript goes up
			want++
		}
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("Round(%v) = %v, want %v", v, got, want)
		}
	})
}
