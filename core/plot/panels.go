package plot

import (
	"fmt"
	"strings"
)

// Panel is one histogram of a stacked picture.
type Panel struct {
	Title  string
	Counts []int // one count per bucket, from bucket 0
}

// PanelsSVG draws histograms stacked on one shared x axis and one shared y
// scale, so that a flatter wave looks flatter. It returns only the SVG; the
// caller draws the text version its own way.
func PanelsSVG(title string, panels []Panel, bucketLabel func(i int) string, axes ...Axes) string {
	ax := axesOf(axes, "bucket", "count")
	buckets, peak := 0, 0
	for _, p := range panels {
		buckets = max(buckets, len(p.Counts))
		for _, c := range p.Counts {
			peak = max(peak, c)
		}
	}
	const left, panelH, gap, plotW = 80, 120.0, 60.0, 800.0
	colW := plotW / float64(max(buckets, 1))
	h := 40 + int(float64(len(panels))*(panelH+gap)) + 20
	s := svgOpen(left+int(plotW)+40, h, title)
	for pi, p := range panels {
		top := 40 + float64(pi)*(panelH+gap)
		base := top + 20 + panelH
		fmt.Fprintf(s, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", left, top+12, esc(p.Title))
		for i, c := range p.Counts {
			if c == 0 || peak == 0 {
				continue
			}
			hgt := float64(c) / float64(peak) * panelH
			fmt.Fprintf(s, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#c8553d"><title>%s: %d</title></rect>`+"\n",
				float64(left)+float64(i)*colW, base-hgt, max(colW, 1), hgt, esc(bucketLabel(i)), c)
		}
		fmt.Fprintf(s, `<line x1="%d" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`+"\n", left, base, float64(left)+plotW, base)
		yAxis(s, left, base, panelH, float64(peak), ax.Y)
		if buckets > 0 {
			for _, i := range []int{0, (buckets - 1) / 2, buckets - 1} {
				tx := float64(left) + (float64(i)+0.5)*colW
				fmt.Fprintf(s, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#333"/>`+"\n", tx, base, tx, base+4)
				fmt.Fprintf(s, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", tx, base+16, esc(bucketLabel(i)))
			}
		}
		fmt.Fprintf(s, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", float64(left)+plotW/2, base+32, esc(ax.X))
	}
	return svgClose(s)
}

// SVGOnly wraps an SVG drawn elsewhere as a figure with no text, for a
// scenario that draws its own text version.
func SVGOnly(name, title, svg string) Figure {
	return Figure{Name: name, Title: title, SVG: strings.TrimSpace(svg) + "\n"}
}
