package plot

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Mark is one event on a lane of a timeline.
type Mark struct {
	At     time.Duration // since the timeline's start
	Symbol string        // one cell wide, e.g. "✓", "✗", "☠"
}

// Lane is one row of a timeline, typically one message.
type Lane struct {
	Label string
	Marks []Mark
	Note  string // printed after the lane
}

// Timeline draws lanes of marks on a shared time axis from 0 to span, width
// cells wide. Marks falling in the same cell show the last one.
func Timeline(name, title string, lanes []Lane, span time.Duration, width int, legend string) Figure {
	end := fmt.Sprintf("%d ms", span.Milliseconds())
	if span <= 0 {
		span = time.Millisecond // everything happened at one instant: draw it at the start
	}
	labelW := 0
	for _, l := range lanes {
		labelW = max(labelW, len([]rune(l.Label)))
	}
	col := func(at time.Duration) int {
		return min(int(math.Round(float64(at)/float64(span)*float64(width-1))), width-1)
	}
	var t strings.Builder
	fmt.Fprintf(&t, "%s\n", title)
	for _, l := range lanes {
		cells := make([]string, width)
		for i := range cells {
			cells[i] = "·"
		}
		for _, m := range l.Marks {
			cells[col(m.At)] = m.Symbol
		}
		fmt.Fprintf(&t, "%s │%s│ %s\n", pad(l.Label, labelW), strings.Join(cells, ""), l.Note)
	}
	start := "0 ms"
	fmt.Fprintf(&t, "%s  %s%s%s\n", strings.Repeat(" ", labelW), start,
		strings.Repeat(" ", max(width-len(start)-len(end), 1)), end)
	if legend != "" {
		fmt.Fprintf(&t, "%s  %s\n", strings.Repeat(" ", labelW), legend)
	}

	const rowH, left, axisW = 26, 110, 600.0
	h := len(lanes)*rowH + 110
	s := svgOpen(left+int(axisW)+260, h, title)
	x := func(at time.Duration) float64 { return float64(left) + float64(at)/float64(span)*axisW }
	for i, l := range lanes {
		y := 50 + i*rowH
		fmt.Fprintf(s, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-10, y+4, esc(l.Label))
		fmt.Fprintf(s, `<line x1="%d" y1="%d" x2="%.0f" y2="%d" stroke="#ccc"/>`+"\n", left, y, float64(left)+axisW, y)
		// Marks closer than a symbol's width would hide each other: each
		// one after the first at the same spot is drawn a step to the
		// right, and a short tick under the lane keeps its true instant.
		lastX, stacked := math.Inf(-1), 0
		for _, m := range l.Marks {
			mx := x(m.At)
			if mx-lastX < markStep {
				stacked++
			} else {
				lastX, stacked = mx, 0
			}
			fmt.Fprintf(s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/>`+"\n", mx, y+8, mx, y+12)
			fmt.Fprintf(s, `<text x="%.1f" y="%d" text-anchor="middle" font-size="18" font-weight="bold" fill="%s">%s<title>%s at %d ms</title></text>`+"\n",
				lastX+float64(stacked)*markStep, y+6, symbolColor(m.Symbol), esc(m.Symbol), esc(l.Label), m.At.Milliseconds())
		}
		fmt.Fprintf(s, `<text x="%.0f" y="%d">%s</text>`+"\n", float64(left)+axisW+12, y+4, esc(l.Note))
	}
	axisY := 50 + len(lanes)*rowH
	fmt.Fprintf(s, `<line x1="%d" y1="%d" x2="%.0f" y2="%d" stroke="#333"/>`+"\n", left, axisY, float64(left)+axisW, axisY)
	for _, tk := range ticks(span) {
		tx := x(tk)
		fmt.Fprintf(s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333"/>`+"\n", tx, axisY, tx, axisY+5)
		fmt.Fprintf(s, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", tx, axisY+18, esc(tickLabel(tk, span)))
	}
	fmt.Fprintf(s, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+axisW/2, axisY+36,
		esc("scenario clock, "+tickUnit(span)+" since the run started"))
	if legend != "" {
		fmt.Fprintf(s, `<text x="%d" y="%d">%s</text>`+"\n", left, axisY+56, esc(legend))
	}
	return Figure{Name: name, Title: title, Text: t.String(), SVG: svgClose(s)}
}

// markStep is how far apart, in SVG pixels, two marks must be to be told apart.
const markStep = 12.0

// symbolColor gives the usual marks their usual colours in the SVG.
func symbolColor(symbol string) string {
	switch symbol {
	case "✓":
		return "#2e8b57"
	case "✗":
		return "#d2691e"
	case "☠":
		return "#b22222"
	case "!":
		return "#8a2be2"
	}
	return "#333"
}

// ticks are the round instants a time axis of span is marked at (see
// niceTicks), in the axis's unit.
func ticks(span time.Duration) []time.Duration {
	unit := time.Millisecond
	if tickUnit(span) == "s" {
		unit = time.Second
	}
	var out []time.Duration
	for _, v := range niceTicks(float64(span) / float64(unit)) {
		out = append(out, time.Duration(math.Round(v*float64(unit))))
	}
	return out
}

// tickUnit is the unit an axis of span is labelled in.
func tickUnit(span time.Duration) string {
	if span >= 10*time.Second {
		return "s"
	}
	return "ms"
}

// tickLabel writes the instant t on an axis of span, in its unit.
func tickLabel(t, span time.Duration) string {
	if tickUnit(span) == "s" {
		return fmt.Sprintf("%g", t.Seconds())
	}
	return fmt.Sprintf("%d", t.Milliseconds())
}
