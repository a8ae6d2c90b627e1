package jsrand

import (
	"math"
	"testing"
)

// The want values below were printed by node v20 running the seed's generator
// (poison-messages-and-retry.md, jitter.mjs); JavaScript prints the shortest
// decimal that reads back as the same double, so the literals are exact.
func TestFirstDrawsMatchJavaScript(t *testing.T) {
	tests := []struct {
		seed int64
		want []float64
	}{
		{20250720, []float64{0.6557189337909222, 0.8734339475631714, 0.6364959478378296, 0.8197754621505737, 0.9600843191146851, 0.6285055875778198}},
		{0, []float64{0.000005748588591814041, 0.6551540484651923, 0.30481433868408203, 0.6324834823608398, 0.9958810806274414, 0.6794614791870117}},
		{1, []float64{0.5138700781390071, 0.1757413148880005, 0.15525975823402405, 0.14626556634902954, 0.2847188413143158, 0.9290890693664551}},
		{2147483647, []float64{0.4861414432525635, 0.8555119037628174, 0.08124756813049316, 0.05118110775947571, 0.6685749888420105, 0.6128692626953125}},
		// The largest exact seed: its first product rounds to a multiple of 2^31.
		{MaxSeed, []float64{0, 0.000005748588591814041, 0.6551540484651923, 0.30481433868408203, 0.6324834823608398, 0.9958810806274414}},
	}
	for _, tt := range tests {
		g := New(tt.seed)
		for i, want := range tt.want {
			if got := g.Next(); got != want {
				t.Errorf("seed %d: draw %d = %v, want %v", tt.seed, i+1, got, want)
			}
		}
	}
}

func TestLaterDrawsMatchJavaScript(t *testing.T) {
	want := map[int]float64{
		20:   0.08990097045898438,
		21:   0.4417896568775177,
		22:   0.44766557216644287, // the first draw a fused multiply-add gets wrong (see below)
		23:   0.5473231077194214,
		24:   0.3091644048690796,
		100:  0.6056433916091919,
		800:  0.4826412498950958, // the last draw of the seed's 200 consumers × 4 attempts
		1000: 0.23209750652313232,
	}
	g := New(20250720)
	for i := 1; i <= 1000; i++ {
		got := g.Next()
		if w, ok := want[i]; ok && got != w {
			t.Errorf("seed 20250720: draw %d = %v, want %v", i, got, w)
		}
	}
}

// An exact integer generator, or one whose multiply and add are fused, draws
// different numbers: the test above would catch either mistake.
func TestOtherArithmeticsDrift(t *testing.T) {
	x := uint64(20250720)
	x = (x*Multiplier + Increment) % Modulus
	if exact, js := float64(x)/Modulus, New(20250720).Next(); exact == js {
		t.Errorf("exact integer first draw %v equals the JavaScript one; the double rounding is not exercised", exact)
	}
	g, fused := New(20250720), float64(20250720)
	for i := 1; i <= 22; i++ {
		js := g.Next()
		fused = math.Mod(math.FMA(fused, Multiplier, Increment), Modulus)
		if differs := fused/Modulus != js; differs != (i == 22) {
			t.Fatalf("draw %d: fused %v, JavaScript %v; want the first difference at draw 22", i, fused/Modulus, js)
		}
	}
}

func TestRoundIsMathRound(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0.5, 1},
		{1.5, 2},
		{2.5, 3}, // halves go up, not to even
		{-0.5, 0},
		{-2.5, -2},
		{0.49999999999999994, 0}, // math.Floor(v+0.5) gives 1
		{327.49999999999994, 327},
		{4503599627370495.5, 4503599627370496},
		{1e300, 1e300},
		{437.3, 437},
		{437.7, 438},
	}
	for _, tt := range tests {
		if got := Round(tt.in); got != tt.want {
			t.Errorf("Round(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	v := 0.49999999999999994 // a variable: constant arithmetic would be exact
	if got := math.Floor(v + 0.5); got != 1 {
		t.Errorf("math.Floor(%v+0.5) = %v; the case above no longer shows the pitfall", v, got)
	}
}
