// Package jsrand reproduces the course scripts' fixed-seed generator in
// JavaScript's arithmetic, so the lab draws exactly the numbers the seed prints.
package jsrand

import "math"

// The seed's linear congruential constants: x = (x*Multiplier + Increment) % Modulus.
const (
	Multiplier = 1103515245
	Increment  = 12345
	Modulus    = 2147483648 // 2^31
)

// MaxSeed is the largest seed a JavaScript number holds exactly (2^53 - 1).
const MaxSeed = 1<<53 - 1

// Generator is the seed's generator:
//
//	const generator = (seed) => { let x = seed;
//	  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648; };
//
// JavaScript computes it in IEEE doubles, so the product is rounded to 53
// bits before the addition, and the addition is rounded again. Next does the
// same; an exact integer generator draws different numbers from the first draw.
type Generator struct {
	x float64
}

// New returns a generator seeded with seed, as generator(seed) does.
// Seeds between 0 and MaxSeed are exact; the zero seed is allowed.
func New(seed int64) *Generator {
	return &Generator{x: float64(seed)}
}

// Next returns the next draw in [0, 1).
func (g *Generator) Next() float64 {
	// The explicit conversions round each step to a double. Without them the Go
	// spec allows the multiply and the add to be fused into one FMA, which
	// rounds once and drifts from JavaScript.
	product := float64(g.x * Multiplier)
	sum := float64(product + Increment)
	g.x = math.Mod(sum, Modulus) // exact: the remainder of a division by a power of two
	return g.x / Modulus
}

// Round is JavaScript's Math.round: the nearest integer, halves rounded up
// (towards +∞), so Round(2.5) = 3 and Round(-2.5) = -2. Unlike
// math.Floor(v+0.5) it does not turn 0.49999999999999994 into 1.
func Round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r := math.Floor(v)
	if v-r >= 0.5 { // exact: v and its floor are within 1 of each other
		r++
	}
	return r
}
