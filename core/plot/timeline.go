package plot

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
)

// Mark is one event on a lane of a timeline.
type Mark struct {
	At     time.Duration // since the timeline's start
	Symbol string        // one cell wide, e.g. "✓", "✗", "☠"
	// Key names the event's subject as the report's text timeline does
	// ("PAY-003", "42#2"); "" means the lane's label. The SVG records it on
	// the mark with the mark's scenario-clock stamp, so a reader (or a test)
	// can find the timeline line the mark stands for.
	Key string
}

// Lane is one row of a timeline, typically one message.
type Lane struct {
	Label string
	Marks []Mark
	Note  string // printed after the lane
}

// Timeline draws lanes of marks on a shared time axis from start (0) to
// start+span, width cells wide in the text form. In the text, marks falling
// in the same cell show the last one. In the SVG every mark is drawn at its
// own instant; marks too close to be told apart are stacked upwards on their
// lane, never moved sideways.
func Timeline(name, title string, lanes []Lane, start time.Time, span time.Duration, width int, legend string) Figure {
	end := fmt.Sprintf("%d ms", span.Milliseconds())
	if span <= 0 {
		span = time.Millisecond // everything happened at one instant: draw it at the start
	}
	labelW := 0
	for _, l := range lanes {
		labelW = max(labelW, len([]rune(l.Label)))
	}
	text := func(width int) string {
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
		startText := "0 ms"
		fmt.Fprintf(&t, "%s  %s%s%s\n", strings.Repeat(" ", labelW), startText,
			strings.Repeat(" ", max(width-len(startText)-len(end), 1)), end)
		if legend != "" {
			fmt.Fprintf(&t, "%s  %s\n", strings.Repeat(" ", labelW), legend)
		}
		return t.String()
	}
	return Figure{Name: name, Title: title, Text: text(width), SVG: timelineSVG(title, lanes, start, span, legend),
		draw: text, cells: width}
}

// The SVG's measures: text is monospace, so a label's width follows from its
// length (textWidth); a mark is a bigger glyph, stacked markRise apart.
const (
	markSize  = 16   // font size of a mark
	markWidth = 13.0 // a mark's glyph is at most this wide: closer marks are stacked
	markRise  = 15.0 // one stacked mark above the next
	axisWidth = 600.0
)

// timelineSVG draws the lanes: row labels right-aligned before the axis,
// notes after it, each lane as tall as its highest stack of marks.
func timelineSVG(title string, lanes []Lane, start time.Time, span time.Duration, legend string) string {
	labelW, noteW := 0.0, 0.0
	for _, l := range lanes {
		labelW = math.Max(labelW, textWidth(l.Label, fontSize))
		noteW = math.Max(noteW, textWidth(l.Note, fontSize))
	}
	left := math.Ceil(10 + labelW + 8 + markWidth/2)
	x := func(at time.Duration) float64 { return left + float64(at)/float64(span)*axisWidth }
	noteX := left + axisWidth + markWidth/2 + 8
	w := int(math.Ceil(noteX + noteW + 10))
	w = max(w, int(math.Ceil(20+textWidth(title, titleSize))))
	legendLines := wrapText(legend, int((float64(w)-left-10)/charWidth(fontSize)))

	levels := make([][]int, len(lanes))
	laneY, laneTop := make([]float64, len(lanes)), make([]float64, len(lanes))
	y := 44.0
	for i, l := range lanes {
		laneTop[i] = y
		levels[i] = stackLevels(l.Marks, x)
		top := 0
		for _, lv := range levels[i] {
			top = max(top, min(lv, maxStack-1))
		}
		// The lane's line sits under its highest stack, with room for the
		// glyphs above it (a mark's glyph rises about 12 px over its baseline).
		y += 14 + float64(top)*markRise
		laneY[i] = y
		y += 12
	}
	axisY := y + 4
	h := int(math.Ceil(axisY + 44 + float64(len(legendLines))*16))
	s := svgOpen(w, h, title)
	// Every other lane is banded, so that a tall stack of marks reads as its
	// lane's and not as the one above's.
	for i := 1; i < len(lanes); i += 2 {
		fmt.Fprintf(s, `<rect x="0" y="%.1f" width="%d" height="%.1f" fill="#f3f5f8"/>`+"\n", laneTop[i], w, laneY[i]+12-laneTop[i])
	}
	for i, l := range lanes {
		ly := laneY[i]
		fmt.Fprintf(s, `<text class="label" x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-markWidth/2-8, ly+4, esc(l.Label))
		fmt.Fprintf(s, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ccc"/>`+"\n", left, ly, left+axisWidth, ly)
		more := overflow(l.Marks, levels[i], x)
		for j, m := range l.Marks {
			if more[j] {
				continue
			}
			key := m.Key
			if key == "" {
				key = l.Label
			}
			at := clock.DayStamp(start.Add(m.At))
			fmt.Fprintf(s, `<text class="mark" data-at="%s" data-key="%s" x="%.1f" y="%.1f" text-anchor="middle" font-size="%d" font-weight="bold" fill="%s">%s<title>%s at %s</title></text>`+"\n",
				at, esc(key), x(m.At), ly+6-float64(levels[i][j])*markRise, markSize, symbolColor(m.Symbol), esc(m.Symbol), esc(key), at)
		}
		for _, g := range overflowGroups(l.Marks, more, x) {
			from, to := clock.DayStamp(start.Add(g.from)), clock.DayStamp(start.Add(g.to))
			fmt.Fprintf(s, `<text class="more" data-at="%s" data-count="%d" x="%.1f" y="%.1f" text-anchor="middle" font-size="11" fill="#333">+%d<title>%d more marks from %s to %s</title></text>`+"\n",
				from, g.n, x(g.from), ly+4-float64(maxStack-1)*markRise, g.n, g.n, from, to)
		}
		fmt.Fprintf(s, `<text class="note" x="%.1f" y="%.1f">%s</text>`+"\n", noteX, ly+4, esc(l.Note))
	}
	fmt.Fprintf(s, `<line class="axis-line" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left, axisY, left+axisWidth, axisY)
	unit := tickUnitOf(span)
	for _, tk := range ticks(span) {
		tx := x(tk)
		fmt.Fprintf(s, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", tx, axisY, tx, axisY+5)
		fmt.Fprintf(s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", tx, axisY+18, tickLabel(tk, unit))
	}
	fmt.Fprintf(s, `<text class="axis" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", left+axisWidth/2, axisY+36,
		esc(TimeAxisName(unit.name, start)))
	for i, line := range legendLines {
		fmt.Fprintf(s, `<text x="%.1f" y="%.1f" xml:space="preserve">%s</text>`+"\n", left, axisY+56+float64(i)*16, esc(line))
	}
	return svgClose(s)
}

// TimeAxisName is the name of a time axis in unit ("ms", "s", "min")
// counted from start: "scenario clock, s since 09:00:00.000Z".
func TimeAxisName(unit string, start time.Time) string {
	return "scenario clock, " + unit + " since " + clock.DayStamp(start)
}

// stackLevels gives each mark its height on the lane: 0 on the line, 1 just
// above, and so on. A mark takes the lowest level whose last mark is at least
// markWidth to its left, so marks at one instant (or nearly) stand in a
// column at that instant.
func stackLevels(marks []Mark, x func(time.Duration) float64) []int {
	order := make([]int, len(marks))
	for i := range order {
		order[i] = i
	}
	// Stable by time: marks given at one instant keep their order upwards.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && marks[order[j]].At < marks[order[j-1]].At; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	levels := make([]int, len(marks))
	var lastX []float64
	for _, i := range order {
		mx := x(marks[i].At)
		lv := 0
		for lv < len(lastX) && mx-lastX[lv] < markWidth {
			lv++
		}
		if lv == len(lastX) {
			lastX = append(lastX, 0)
		}
		lastX[lv] = mx
		levels[i] = lv
	}
	return levels
}

// maxStack is the most marks a stack shows: from the maxStack-th up, the
// marks of a stack are counted in one "+N" at its top instead, so a run with
// hundreds of marks at one instant stays a picture of reasonable height.
const maxStack = 12

// overflow tells which marks stand too high to be drawn: those at level
// maxStack-1 or above, unless a mark is alone up there (then it is drawn).
func overflow(marks []Mark, levels []int, x func(time.Duration) float64) []bool {
	high := make([]bool, len(marks))
	for j, lv := range levels {
		high[j] = lv >= maxStack-1
	}
	for _, g := range overflowGroups(marks, high, x) {
		if g.n == 1 {
			high[g.first] = false
		}
	}
	return high
}

// stackGroup is a run of marks too high to draw, closer than a mark's width.
type stackGroup struct {
	from, to time.Duration
	n, first int
}

// overflowGroups gathers the marks picked by high into groups, in time order.
func overflowGroups(marks []Mark, high []bool, x func(time.Duration) float64) []stackGroup {
	var idx []int
	for j := range marks {
		if high[j] {
			idx = append(idx, j)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(marks[a].At, marks[b].At) })
	var out []stackGroup
	for _, j := range idx {
		at := marks[j].At
		if n := len(out); n > 0 && x(at)-x(out[n-1].from) < markWidth {
			out[n-1].to, out[n-1].n = at, out[n-1].n+1
			continue
		}
		out = append(out, stackGroup{from: at, to: at, n: 1, first: j})
	}
	return out
}

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

// timeUnit is what a time axis is labelled in.
type timeUnit struct {
	name string
	size time.Duration
}

// tickUnitOf is the unit an axis of span is labelled in: milliseconds up to
// 2 s, seconds up to 3 min, then minutes.
func tickUnitOf(span time.Duration) timeUnit {
	switch {
	case span <= 2*time.Second:
		return timeUnit{"ms", time.Millisecond}
	case span <= 3*time.Minute:
		return timeUnit{"s", time.Second}
	}
	return timeUnit{"min", time.Minute}
}

// ticks are the round instants a time axis of span is marked at: 0, then
// every step of 1, 2 or 5 times a power of ten of the axis's unit, never
// finer than the scenario clock's millisecond, so no two read alike.
func ticks(span time.Duration) []time.Duration {
	unit := tickUnitOf(span)
	top := float64(span) / float64(unit.size)
	step := niceStep(top, float64(time.Millisecond)/float64(unit.size))
	var out []time.Duration
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		out = append(out, time.Duration(math.Round(float64(i)*step*float64(unit.size))))
	}
	return out
}

// tickLabel writes the instant t in unit, with no more digits than a round
// step needs.
func tickLabel(t time.Duration, unit timeUnit) string {
	return tickText(float64(t) / float64(unit.size))
}
