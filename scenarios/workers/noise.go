package workers

import (
	"fmt"
	"slices"
)

// A configuration is drained in rounds, interleaved with the others' (see
// runRounds), and each round is one measurement. A configuration is held
// against another round by round: the ratio of their messages/s in the same
// round, so that load which comes and goes during the run, weighing on both
// alike, cancels. Two configurations differ only when both hold:
//   - the ratio is beyond 1 the same way in every round: for two series of
//     one configuration each round is a coin toss, so all r of them land on
//     one side 2 in 2^r times, 1 in 256 with the 9 rounds of the default;
//   - the median ratio is beyond noiseRatio, either way: a difference too
//     small to matter, as on an idle machine whose rounds hardly vary, is
//     not a finding, and it makes the first chance smaller still.
//
// With fewer than minRounds rounds nothing is told apart: with 4, two series
// of one configuration would land on one side 1 time in 8.
const (
	noiseRatio = 1.2
	minRounds  = 5
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
	inNoise difference = iota // the rounds disagree, or the median ratio is within noiseRatio
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

// comparison is configuration x against a baseline b, round by round.
type comparison struct {
	ratio spread // x's messages/s over b's in the same round
	diff  difference
}

// compare holds x against b by the rule above.
func compare(x, b *drainRun) comparison {
	n := min(len(x.rounds), len(b.rounds))
	ratios := make([]float64, n)
	for i := range n {
		ratios[i] = x.rounds[i].rate() / b.rounds[i].rate()
	}
	c := comparison{ratio: spreadOf(ratios)}
	switch {
	case n < minRounds:
		c.diff = untold
	case c.ratio.lo > 1 && c.ratio.median >= noiseRatio:
		c.diff = faster
	case c.ratio.hi < 1 && c.ratio.median <= 1/noiseRatio:
		c.diff = slower
	}
	return c
}

// ratioText is a comparison's median ratio with its rounds' range.
func (c comparison) ratioText() string {
	return fmt.Sprintf("%.2f× (%.2f–%.2f×)", c.ratio.median, c.ratio.lo, c.ratio.hi)
}
