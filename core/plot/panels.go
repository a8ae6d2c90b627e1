package plot

import (
	"fmt"
	"math"
	"strings"
)

// Panel is one histogram of a stacked picture.
type Panel struct {
	Title  string
	Counts []int   // one count per bucket, from bucket 0
	Shades []Shade // spans of the axis to shade, e.g. an outage
}

// Shade is a span of a panel's axis drawn shaded behind the columns, with
// its label above it: From and To are in buckets (2.5 is halfway through
// bucket 2).
type Shade struct {
	From, To float64
	Label    string
}

// The measures of a stacked panel, from its top down: its title, a strip
// for the shades' labels, the plot, the x axis with its ticks and name.
const (
	panelLeft  = 96.0
	panelPlotW = 800.0
	panelPlotH = 120.0
	panelGap   = 24.0
	shadeStrip = 18.0
)

// PanelsSVG draws histograms stacked on one shared x axis and one shared y
// scale, so that a flatter wave looks flatter. The x axis is marked at round
// bucket boundaries, labelled bucketLabel(i) (the start of bucket i; i runs
// to len(Counts), the end of the last one). It returns only the SVG; the
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
	strip := 0.0 // room above the plots for the shades' labels, when there are shades
	for _, p := range panels {
		if len(p.Shades) > 0 {
			strip = shadeStrip
		}
	}
	colW := panelPlotW / float64(max(buckets, 1))
	x := func(b float64) float64 { return panelLeft + b*colW }
	panelH := 16 + strip + panelPlotH + 44
	w := int(panelLeft + panelPlotW + 40)
	titleLines := wrapText(title, int((float64(w)-20)/charWidth(titleSize)))
	head := 10 + float64(len(titleLines))*18 + 8
	h := int(math.Ceil(head + float64(len(panels))*(panelH+panelGap)))
	s := svgOpenLines(w, h, titleLines)
	for pi, p := range panels {
		top := head + float64(pi)*(panelH+panelGap)
		plotTop := top + 16 + strip
		base := plotTop + panelPlotH
		fmt.Fprintf(s, `<g class="panel">`+"\n")
		fmt.Fprintf(s, `<rect class="panel-box" x="0" y="%.1f" width="%d" height="%.1f" fill="none"/>`+"\n", top, w, panelH)
		fmt.Fprintf(s, `<text x="%.0f" y="%.1f" font-weight="bold">%s</text>`+"\n", panelLeft, top+12, esc(p.Title))
		for _, sh := range p.Shades {
			x0, x1 := x(sh.From), x(sh.To)
			fmt.Fprintf(s, `<rect class="shade" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#f2d0c9"/>`+"\n",
				x0, plotTop-strip+2, x1-x0, base-plotTop+strip-2)
			fmt.Fprintf(s, `<text x="%.1f" y="%.1f" font-style="italic" fill="#7a2e1f">%s</text>`+"\n",
				x0+4, plotTop-4, esc(sh.Label))
		}
		for i, c := range p.Counts {
			if c == 0 || peak == 0 {
				continue
			}
			hgt := float64(c) / float64(peak) * panelPlotH
			fmt.Fprintf(s, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#c8553d"><title>%s: %d</title></rect>`+"\n",
				x(float64(i)), base-hgt, max(colW, 1), hgt, esc(bucketLabel(i)), c)
		}
		fmt.Fprintf(s, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#333"/>`+"\n", panelLeft, base, panelLeft+panelPlotW, base)
		yAxis(s, panelLeft, base, panelPlotH, float64(peak), ax.Y)
		if buckets > 0 {
			step := niceStep(float64(buckets), 1)
			for v := 0.0; v <= float64(buckets)+1e-9; v += step {
				i := int(math.Round(v))
				tx := x(float64(i))
				fmt.Fprintf(s, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", tx, base, tx, base+4)
				fmt.Fprintf(s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", tx, base+16, esc(bucketLabel(i)))
			}
		}
		fmt.Fprintf(s, `<text class="axis" x="%.0f" y="%.1f" text-anchor="middle">%s</text>`+"\n", panelLeft+panelPlotW/2, base+34, esc(ax.X))
		s.WriteString("</g>\n")
	}
	return svgClose(s)
}

// SVGOnly wraps an SVG drawn elsewhere as a figure with no text, for a
// scenario that draws its own text version.
func SVGOnly(name, title, svg string) Figure {
	return Figure{Name: name, Title: title, SVG: strings.TrimSpace(svg) + "\n"}
}
