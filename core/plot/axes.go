package plot

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Axes name what a chart's axes measure, with their units: "scenario time
// (ms)", "messages". A chart drawn without them names its axes "value" and
// "bucket", which says less.
type Axes struct {
	X, Y string
}

// axesOf returns the first of axes, or defaults naming the axes x and y.
func axesOf(axes []Axes, x, y string) Axes {
	a := Axes{X: x, Y: y}
	if len(axes) > 0 {
		if axes[0].X != "" {
			a.X = axes[0].X
		}
		if axes[0].Y != "" {
			a.Y = axes[0].Y
		}
	}
	return a
}

// niceTicks are round values from 0 up to top: 0, then every step of
// 1, 2 or 5 times a power of ten, about five of them.
func niceTicks(top float64) []float64 {
	if top <= 0 || math.IsNaN(top) || math.IsInf(top, 0) {
		return []float64{0}
	}
	step := niceStep(top, 0)
	var out []float64
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		out = append(out, roundTo(float64(i)*step, step))
	}
	return out
}

// niceStep is the step of about five round ticks from 0 to top: 1, 2 or 5
// times a power of ten, and at least least (a unit's smallest meaningful
// step; 0 for none). A top of 0 (or less) gives the step least, or 1.
func niceStep(top, least float64) float64 {
	if top <= 0 || math.IsNaN(top) || math.IsInf(top, 0) {
		return max(least, 1)
	}
	mag := math.Pow(10, math.Floor(math.Log10(top/5)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if top/step <= 5 {
			break
		}
	}
	return max(step, least)
}

// roundTo drops the binary noise of v, a multiple of step (0.30000000000000004
// is 0.3).
func roundTo(v, step float64) float64 {
	digits := max(0, -int(math.Floor(math.Log10(step))))
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// tickText writes a tick value without a useless fraction.
func tickText(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// yAxis draws a vertical axis at x from base (value 0) up height pixels
// (value top), ticked at whole round counts, with its name rotated beside
// it, wrapped onto as many lines as it takes to stay within height.
func yAxis(s *strings.Builder, x, base, height, top float64, name string) {
	fmt.Fprintf(s, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#333"/>`+"\n", x, base, x, base-height)
	step := niceStep(top, 1)
	for v := 0.0; v <= top*(1+1e-9) || v == 0; v += step {
		y := base
		if top > 0 {
			y = base - v/top*height
		}
		fmt.Fprintf(s, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#333"/>`+"\n", x-4, y, x, y)
		fmt.Fprintf(s, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", x-6, y+4, tickText(v))
	}
	lines := wrapText(name, int(height/charWidth(fontSize)))
	for k, line := range lines {
		fmt.Fprintf(s, `<text transform="translate(%.0f,%.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n",
			x-40-14*float64(len(lines)-1-k), base-height/2, esc(line))
	}
}
