package plot

import (
	"fmt"
	"regexp"
	"strings"
)

// svgSize reads the width and height of an SVG document's outer element.
var svgSize = regexp.MustCompile(`^<svg [^>]*width="(\d+)" height="(\d+)"`)

// Captioned returns f with caption (the scenario and its non-default flags,
// say) written in a band above its SVG, wrapped onto as many lines as the
// figure's width takes, and in its SVG <title>, so a picture saved on its own
// still says which run drew it. The text form is unchanged.
func (f Figure) Captioned(caption string) Figure {
	m := svgSize.FindStringSubmatch(f.SVG)
	if caption == "" || m == nil {
		return f
	}
	var w, h int
	fmt.Sscan(m[1], &w)
	fmt.Sscan(m[2], &h)
	lines := wrapText(caption, int(float64(w-20)/charWidth(fontSize)))
	band := 6 + 16*len(lines)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="12">`+"\n",
		w, h+band, w, h+band)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(caption+" — "+f.Title))
	b.WriteString(scaleToPage)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, line := range lines {
		fmt.Fprintf(&b, `<text class="caption" x="10" y="%d" fill="#555">%s</text>`+"\n", 15+16*i, esc(line))
	}
	// The figure itself, whole, below the band: a nested <svg> keeps its own size.
	fmt.Fprintf(&b, `<g transform="translate(0,%d)">`+"\n", band)
	b.WriteString(f.SVG)
	b.WriteString("</g>\n</svg>\n")
	f.SVG = b.String()
	return f
}
