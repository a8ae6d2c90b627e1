// Package plot draws the lab's pictures twice: as Unicode text for the
// terminal and the report body, and as SVG to write beside the report.
package plot

import (
	"fmt"
	"html"
	"math"
	"strings"
	"unicode/utf8"
)

// Figure is one picture in both forms.
type Figure struct {
	Name  string // short file-name part, e.g. "timeline"
	Title string
	Text  string // deterministic Unicode rendering, ends with a newline
	SVG   string // standalone SVG document

	// draw renders the text form cells wide (the bars', the lanes', the
	// histogram's columns), when the figure can be drawn narrower for a
	// terminal (TextAt); cells is the width Text was drawn at.
	draw  func(cells int) string
	cells int
}

// minCells is the narrowest TextAt draws a figure's bars, lanes or columns.
const minCells = 20

// TextAt is the figure's text form drawn for a terminal of columns columns:
// the same picture on fewer cells when Text is wider, else Text. A line
// that does not depend on the cells (a legend) may still be wider: the
// caller wraps it. Every character of a figure's text takes one column.
func (f Figure) TextAt(columns int) string {
	over := widest(f.Text) - columns
	if over <= 0 || f.draw == nil {
		return f.Text
	}
	first := max(f.cells-over, minCells)
	for cells := first; cells >= minCells; cells-- {
		if text := f.draw(cells); widest(text) <= columns {
			return text
		}
	}
	return f.draw(first)
}

// widest is the width of the widest line of text, a rune a column.
func widest(text string) int {
	w := 0
	for _, l := range strings.Split(text, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// Bar is one labelled value of a bar chart.
type Bar struct {
	Label string
	Value float64
	Note  string // printed after the bar, e.g. "800 ms"
}

var eighths = []rune(" ▏▎▍▌▋▊▉█")

// Bars draws a horizontal bar chart: one row per bar, partial cells drawn in
// eighths. A bar of value scale is width cells long; scale 0 means the
// longest bar's value (charts meant to be compared pass a shared scale).
func Bars(name, title string, bars []Bar, width int, scale float64, axes ...Axes) Figure {
	ax := axesOf(axes, "value", "")
	maxV, labelW := scale, 0
	for _, b := range bars {
		if scale <= 0 {
			maxV = math.Max(maxV, b.Value)
		}
		labelW = max(labelW, len([]rune(b.Label)))
	}
	text := func(width int) string {
		var t strings.Builder
		fmt.Fprintf(&t, "%s\n", title)
		for _, b := range bars {
			line := fmt.Sprintf("%s │%s %s", pad(b.Label, labelW), hbar(b.Value, maxV, width), b.Note)
			t.WriteString(strings.TrimRight(line, " ") + "\n")
		}
		return t.String()
	}

	// The label column is as wide as the longest label (160 px at least),
	// the note column as the longest note after a full bar.
	const rowH, barW = 22, 480.0
	left, right := 160, 200
	for _, b := range bars {
		left = max(left, int(math.Ceil(18+textWidth(b.Label, fontSize))))
		right = max(right, int(math.Ceil(16+textWidth(b.Note, fontSize))))
	}
	left = max(left, int(math.Ceil(18+textWidth(ax.Y, fontSize))))
	h := len(bars)*rowH + 90
	s := svgOpen(left+int(barW)+right, h, title)
	axisY := 40 + len(bars)*rowH + 4
	fmt.Fprintf(s, `<line x1="%d" y1="%d" x2="%.0f" y2="%d" stroke="#333"/>`+"\n", left, axisY, float64(left)+barW, axisY)
	for _, v := range niceTicks(maxV) {
		tx := float64(left)
		if maxV > 0 {
			tx += v / maxV * barW
		}
		fmt.Fprintf(s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333"/>`+"\n", tx, axisY, tx, axisY+4)
		fmt.Fprintf(s, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", tx, axisY+16, tickText(v))
	}
	fmt.Fprintf(s, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+barW/2, axisY+34, esc(ax.X))
	if ax.Y != "" {
		fmt.Fprintf(s, `<text x="%d" y="%d" text-anchor="end" font-style="italic">%s</text>`+"\n", left-8, 34, esc(ax.Y))
	}
	for i, b := range bars {
		y := 40 + i*rowH
		w := 0.0
		if maxV > 0 {
			w = b.Value / maxV * barW
		}
		fmt.Fprintf(s, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+14, esc(b.Label))
		fmt.Fprintf(s, `<rect x="%d" y="%d" width="%.1f" height="16" fill="#4878a8"/>`+"\n", left, y+2, w)
		fmt.Fprintf(s, `<text x="%.1f" y="%d">%s</text>`+"\n", float64(left)+w+6, y+14, esc(b.Note))
	}
	return Figure{Name: name, Title: title, Text: text(width), SVG: svgClose(s), draw: text, cells: width}
}

func hbar(v, maxV float64, width int) string {
	if maxV <= 0 || v <= 0 {
		return strings.Repeat(" ", width)
	}
	cells := int(math.Round(v / maxV * float64(width) * 8))
	full, part := cells/8, cells%8
	s := strings.Repeat("█", full)
	if part > 0 {
		s += string(eighths[part])
		full++
	}
	return s + strings.Repeat(" ", max(width-full, 0))
}

// Columns draws a vertical histogram of counts per bucket, height rows tall.
// More buckets than width are merged (summed) so the text fits a terminal;
// the SVG keeps every bucket.
func Columns(name, title string, counts []int, bucketLabel func(i int) string, height, width int, axes ...Axes) Figure {
	ax := axesOf(axes, "bucket", "count")
	text := func(width int) string { return columnsText(title, counts, bucketLabel, height, width) }
	return Figure{Name: name, Title: title, Text: text(width), SVG: columnsSVG(title, counts, bucketLabel, ax),
		draw: text, cells: width}
}

// columnsText is the terminal's histogram: one column of eighth blocks per
// (merged) bucket, the peak on the y axis, the first and last labels under it.
func columnsText(title string, counts []int, bucketLabel func(i int) string, height, width int) string {
	merged, per := mergeBuckets(counts, width)
	peak := 0
	for _, c := range merged {
		peak = max(peak, c)
	}
	var t strings.Builder
	fmt.Fprintf(&t, "%s\n", title)
	for row := height - 1; row >= 0; row-- {
		axis := "      "
		if row == height-1 {
			axis = fmt.Sprintf("%5d ", peak)
		}
		t.WriteString(axis + "│")
		for _, c := range merged {
			t.WriteRune(columnCell(c, peak, height, row))
		}
		t.WriteString("\n")
	}
	fmt.Fprintf(&t, "%5d └%s\n", 0, strings.Repeat("─", len(merged)))
	if len(merged) > 0 {
		last := bucketLabel(len(counts) - 1)
		first := bucketLabel(0)
		gap := max(len(merged)-len([]rune(first))-len([]rune(last)), 1)
		fmt.Fprintf(&t, "       %s%s%s\n", first, strings.Repeat(" ", gap), last)
	}
	if per > 1 {
		fmt.Fprintf(&t, "       (each column sums %d buckets)\n", per)
	}
	return t.String()
}

// columnCell is the block a column of count c shows in text row row
// (0 at the bottom) of a histogram height rows tall whose top is peak.
func columnCell(c, peak, height, row int) rune {
	blocks := []rune(" ▁▂▃▄▅▆▇█")
	level := 0
	if peak > 0 {
		level = int(math.Round(float64(c) / float64(peak) * float64(height*8)))
	}
	fill := level - row*8
	switch {
	case fill >= 8:
		return '█'
	case fill > 0:
		return blocks[fill]
	case row == 0 && c > 0:
		return '▁' // a non-empty bucket never disappears
	default:
		return ' '
	}
}

// columnsSVG is the picture: every bucket its own bar, scaled to the
// largest count, with the x axis labelled under columnMarks' buckets.
func columnsSVG(title string, counts []int, bucketLabel func(i int) string, ax Axes) string {
	const plotH, left = 200.0, 80
	colW := math.Max(1, math.Min(12, 600/float64(max(len(counts), 1))))
	center := func(i int) float64 { return float64(left) + (float64(i)+0.5)*colW }
	half := func(i int) float64 { return textWidth(bucketLabel(i), fontSize) / 2 }
	marked := columnMarks(len(counts), center, half)
	wTotal := left + max(int(colW*float64(len(counts))), 240) + 40
	if len(counts) > 0 {
		wTotal = max(wTotal, int(math.Ceil(center(len(counts)-1)+half(len(counts)-1)+10)))
	}
	s := svgOpen(wTotal, int(plotH)+110, title)
	rawPeak := 0
	for _, c := range counts {
		rawPeak = max(rawPeak, c)
	}
	for i, c := range counts {
		if c == 0 || rawPeak == 0 {
			continue
		}
		h := float64(c) / float64(rawPeak) * plotH
		fmt.Fprintf(s, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#c8553d"><title>%s: %d</title></rect>`+"\n",
			float64(left)+float64(i)*colW, 40+plotH-h, colW, h, esc(bucketLabel(i)), c)
	}
	fmt.Fprintf(s, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="#333"/>`+"\n", left, 40+plotH, wTotal-20, 40+plotH)
	yAxis(s, left, 40+plotH, plotH, float64(rawPeak), ax.Y)
	if len(counts) > 0 {
		for _, i := range marked {
			tx := center(i)
			fmt.Fprintf(s, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#333"/>`+"\n", tx, 40+plotH, tx, 44+plotH)
			fmt.Fprintf(s, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", tx, 40+plotH+18, esc(bucketLabel(i)))
		}
	}
	fmt.Fprintf(s, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", float64(left+wTotal-20)/2, 40+plotH+40, esc(ax.X))
	return svgClose(s)
}

// columnMarks are the buckets the x axis is labelled under: the first,
// middle and last. The picture is wide enough for the last label to end
// inside it, and the middle one is left out where it would run into a
// neighbour.
func columnMarks(n int, center, half func(i int) float64) []int {
	var marked []int
	if n > 0 {
		marked = []int{0, (n - 1) / 2, n - 1}
	}
	if len(marked) == 3 && (center(marked[1])-half(marked[1]) < center(0)+half(0)+8 ||
		center(marked[1])+half(marked[1]) > center(marked[2])-half(marked[2])-8) {
		marked = []int{0, marked[2]}
	}
	if len(marked) > 1 && center(marked[len(marked)-1])-half(marked[len(marked)-1]) < center(0)+half(0)+8 {
		marked = marked[:1]
	}
	return marked
}

func mergeBuckets(counts []int, width int) ([]int, int) {
	per := 1
	if width > 0 && len(counts) > width {
		per = (len(counts) + width - 1) / width
	}
	out := make([]int, 0, (len(counts)+per-1)/per)
	for i := 0; i < len(counts); i += per {
		sum := 0
		for _, c := range counts[i:min(i+per, len(counts))] {
			sum += c
		}
		out = append(out, sum)
	}
	return out, per
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-len([]rune(s)), 0))
}

func esc(s string) string { return html.EscapeString(s) }

// scaleToPage makes an SVG opened on its own (not in an <img>, whose box
// sizes it) no wider than the window: drawn at its own size where that fits,
// scaled down, keeping its proportions, where it does not.
const scaleToPage = "<style>svg:root{max-width:100%;height:auto}</style>\n"

func svgOpen(w, h int, title string) *strings.Builder {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="12">`+"\n", w, h, w, h)
	b.WriteString(scaleToPage)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", esc(title))
	return &b
}

// svgOpenLines is svgOpen with a title already broken into lines.
func svgOpenLines(w, h int, title []string) *strings.Builder {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="12">`+"\n", w, h, w, h)
	b.WriteString(scaleToPage)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, line := range title {
		fmt.Fprintf(&b, `<text x="10" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", 20+18*i, esc(line))
	}
	return &b
}

func svgClose(b *strings.Builder) string {
	b.WriteString("</svg>\n")
	return b.String()
}

// The SVGs' text sizes, in pixels.
const (
	fontSize  = 12
	titleSize = 14
)

// charWidth is how wide a character of a monospace font of size is: 0.6 em.
func charWidth(size float64) float64 { return 0.6 * size }

// textWidth is how wide s is drawn in a monospace font of size: 0.6 em a
// character; a character outside ASCII (a symbol, a dash) may come from a
// wider fallback font, so it counts a whole em.
func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		if r < 128 {
			w += charWidth(size)
		} else {
			w += size
		}
	}
	return w
}

// wrapText breaks s at spaces into lines of at most width characters (a
// longer word stays whole on its own line); the spaces between the words of
// a line are kept as they were ("✓ applied   ✗ failed"); "" gives no lines.
func wrapText(s string, width int) []string {
	var lines []string
	line, gap := "", ""
	for _, r := range strings.Split(s, " ") {
		if r == "" {
			gap += " "
			continue
		}
		switch {
		case line == "":
			line = r
		case len([]rune(line))+len(gap)+1+len([]rune(r)) <= width:
			line += gap + " " + r
		default:
			lines = append(lines, line)
			line = r
		}
		gap = ""
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
