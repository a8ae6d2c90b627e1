package grade

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Variations: a Day's defaults are the course's numbers; the others are
// drawn from the seed by the Day's vary.

// DefaultSeed draws the variations every grade runs unless --seed says otherwise.
const DefaultSeed = 20260116

// DefaultVariations is how many variations a grade runs beside the defaults.
const DefaultVariations = 3

// variation is one set of a Day's parameters: the defaults (the course's
// numbers) or one drawn from the seed.
type variation struct {
	Label          string
	Payments       int
	Poison         []string // status check fails every time
	Declined       string
	Transient      string // fails the first TransientFails checks, then pays
	TransientFails int
	Lethal         string   // poison-counter: the handler of this key crashes
	More           []string // Day 17: keys that fail in Day 16's drain, then pay once fixed
	Fixed          bool     // Day 17: the provider is fixed before the redrive
	Approver       string   // Day 17
	Reason         string
	RedriveBatch   int
	RedriveEvery   time.Duration
	RedriveMore    int    // attempts a redriven entry gets
	Refusal        bool   // Day 17: this run withholds the approver (the redrive must refuse)
	KillKey        string // Day 15: the worker is killed with this key's answer in flight
	StallKey       string // Day 15: this key's answer is held past the lease
	MaxAttempts    int
	BaseBackoff    time.Duration
	MaxBackoff     time.Duration
	Lease          time.Duration
	Batch          int
	Workers        int
}

// backoff is the Day 16 backoff after failed attempt n: base × 2^(n-1),
// capped at MaxBackoff when it is set.
func (v variation) backoff(n int) time.Duration {
	d := v.BaseBackoff
	for i := 1; i < n; i++ {
		d *= 2
		if v.MaxBackoff > 0 && d >= v.MaxBackoff {
			break
		}
	}
	if v.MaxBackoff > 0 && d > v.MaxBackoff {
		d = v.MaxBackoff
	}
	return d
}

// variations are the defaults, then n drawn from seed.
func (o *Options) variations() []variation {
	out := []variation{o.Day.defaults}
	out[0].Label = "defaults"
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	for i := 1; i <= o.Variations; i++ {
		out = append(out, o.Day.vary(rng, fmt.Sprintf("variation %d", i)))
	}
	return out
}
