package workers

import (
	"fmt"
	"slices"
	"strconv"
)

// A configuration is drained in rounds, interleaved with the others' (see
// runRounds), and each round is one measurement. Two configurations differ
// only when both hold:
//   - their rounds barely mix: of the r×r pairs of a round of one and a
//     round of the other, at most as many go against the difference as two
//     series of one configuration would reach by chance less than 1 time in
//     200 (noiseChance; the Mann–Whitney count, exactly: 9 of 81 with the 9
//     rounds of the default, 4 in 1000). A round or two that a busy machine
//     stalled costs a few pairs, not the finding;
//   - the median of the round-by-round ratios (each round against the same
//     round of the other, so that load which comes and goes cancels) is
//     beyond noiseRatio, either way: a difference too small to matter, as on
//     an idle machine whose rounds hardly vary, is not a finding.
//
// With fewer rounds than minRounds nothing is told apart: with 5 each, even
// two series that do not mix at all happen by chance 1 time in 126.
const (
	noiseRatio  = 1.2
	noiseChance = 0.005
	minRounds   = 6
)

// spread is a series' median and its lowest and highest value.
type spread struct{ median, lo, hi float64 }

func spreadOf(xs []float64) spread {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return spread{}
	}
	m := s[n/2]
	if n%2 == 0 {
		m = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{median: m, lo: s[0], hi: s[n-1]}
}

// rates are the messages/s of each of d's rounds.
func (d *drainRun) rates() []float64 {
	out := make([]float64, len(d.rounds))
	for i, r := range d.rounds {
		out[i] = r.rate()
	}
	return out
}

// rate is d's median messages/s over its rounds.
func (d *drainRun) rate() float64 { return spreadOf(d.rates()).median }

// A difference is what the rule above says of two configurations.
type difference int

const (
	inNoise difference = iota // the rounds mix, or the median ratio is within noiseRatio
	faster
	slower
	untold // too few rounds to tell
)

// String is the difference as the conclusion says it.
func (d difference) String() string {
	return [...]string{"inside the noise", "faster", "slower", "too few rounds to tell"}[d]
}

// word is the difference in one word, for a table cell and the JSON.
func (d difference) word() string { return [...]string{"noise", "faster", "slower", "untold"}[d] }

// comparison is configuration x against a baseline b.
type comparison struct {
	ratio   spread  // x's messages/s over b's in the same round
	against float64 // pairs of rounds that go against the majority (a tie counts a half)
	pairs   int     // pairs of rounds, one of x and one of b
	allowed int     // the most against that still counts; -1: none does
	diff    difference
}

// compare holds x against b by the rule above.
func compare(x, b *drainRun) comparison {
	n := min(len(x.rounds), len(b.rounds))
	ratios := make([]float64, n)
	for i := range n {
		ratios[i] = x.rounds[i].rate() / b.rounds[i].rate()
	}
	xs, bs := x.rates(), b.rates()
	var above float64 // pairs in which x's round is the faster
	for _, xr := range xs {
		for _, br := range bs {
			switch {
			case xr > br:
				above++
			case xr == br:
				above += 0.5
			}
		}
	}
	c := comparison{ratio: spreadOf(ratios), pairs: len(xs) * len(bs), allowed: allowedAgainst(len(xs), len(bs))}
	c.against = min(above, float64(c.pairs)-above)
	switch {
	case n < minRounds || c.allowed < 0:
		c.diff = untold
	case c.against > float64(c.allowed):
	case above > float64(c.pairs)/2 && c.ratio.median >= noiseRatio:
		c.diff = faster
	case above < float64(c.pairs)/2 && c.ratio.median <= 1/noiseRatio:
		c.diff = slower
	}
	return c
}

// allowedAgainst is the most pairs of rounds, of n×m, that may go against a
// difference: the largest u for which two series of one configuration (every
// order of their n+m rounds alike) leave u or fewer pairs to one side or the
// other less than noiseChance of the time; -1 if even 0 is not that rare.
func allowedAgainst(n, m int) int {
	// ways[i][j][u]: orders of i rounds of one series and j of the other in
	// which u pairs have the first series' round the faster.
	ways := make([][][]float64, n+1)
	for i := range ways {
		ways[i] = make([][]float64, m+1)
		for j := range ways[i] {
			ways[i][j] = make([]float64, i*j+1)
			switch {
			case i == 0 || j == 0:
				ways[i][j][0] = 1
			default:
				for u := range ways[i][j] {
					if u-j >= 0 && u-j < len(ways[i-1][j]) {
						ways[i][j][u] += ways[i-1][j][u-j] // the fastest round is the first series': it beats all j
					}
					if u < len(ways[i][j-1]) {
						ways[i][j][u] += ways[i][j-1][u]
					}
				}
			}
		}
	}
	var total, cum float64
	for _, w := range ways[n][m] {
		total += w
	}
	allowed := -1
	for u, w := range ways[n][m] {
		cum += w
		if 2*cum/total >= noiseChance || 2*u >= n*m {
			break
		}
		allowed = u
	}
	return allowed
}

// ratioText is a comparison's median ratio with its rounds' range.
func (c comparison) ratioText() string {
	return fmt.Sprintf("%.2f× (%.2f–%.2f×)", c.ratio.median, c.ratio.lo, c.ratio.hi)
}

// mixText says how many pairs of rounds went against the majority: "3/81 against".
func (c comparison) mixText() string {
	return fmt.Sprintf("%s/%d against", strconv.FormatFloat(c.against, 'f', -1, 64), c.pairs)
}
