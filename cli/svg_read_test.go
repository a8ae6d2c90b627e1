package cli

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// svgDoc is what the checks read of an SVG: its size, its texts, and its
// panels (a <g class="panel"> with a <rect class="panel-box">, texts and
// <rect class="shade"> spans).
type svgDoc struct {
	root   string
	w, h   float64
	axis   [2]float64 // the x extent of a timeline's axis line (class "axis-line")
	texts  []svgText
	panels []svgPanel
}

type svgPanel struct {
	box    box
	texts  []svgText
	shades []svgRect
}

type svgRect struct{ x, y, w, h float64 }

type svgText struct {
	x, y, size    float64
	anchor, class string
	at, key       string
	rotated       bool // rotate(-90) about (x, y)
	content       string
}

type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlap(b box) float64 {
	w := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
	h := math.Min(a.y1, b.y1) - math.Max(a.y0, b.y0)
	return math.Min(w, h)
}

// box estimates where a text is drawn: a monospace character is 0.6 em wide
// (a symbol from a fallback font up to 0.8 em), the glyphs rise 0.75 em
// over the baseline and fall 0.2 em under it.
func (tx svgText) box() box {
	w := 0.0
	for _, r := range tx.content {
		if r < 128 {
			w += 0.6 * tx.size
		} else {
			w += 0.8 * tx.size
		}
	}
	x0 := tx.x
	switch tx.anchor {
	case "middle":
		x0 -= w / 2
	case "end":
		x0 -= w
	}
	b := box{x0, tx.y - 0.75*tx.size, x0 + w, tx.y + 0.2*tx.size}
	if tx.rotated { // turned a quarter to the left about (x, y)
		b = box{tx.x - 0.75*tx.size, tx.y - (b.x1 - tx.x), tx.x + 0.2*tx.size, tx.y - (b.x0 - tx.x)}
	}
	return b
}

var (
	translate = regexp.MustCompile(`^translate\(([-\d.]+),\s*([-\d.]+)\)`)
	rotate    = regexp.MustCompile(`rotate\(-90\)`)
)

// parseSVG reads an SVG as the lab writes it: nested <svg> and
// <g transform="translate(x,y)"> shift what they hold; a text's own
// transform is translate(x,y) and maybe rotate(-90).
func parseSVG(raw []byte) (*svgDoc, error) {
	doc := &svgDoc{}
	d := xml.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		dx, dy, size float64
		panel        int // index into doc.panels, or -1
	}
	stack := []frame{{size: 12, panel: -1}}
	var cur *svgText
	inTitle := 0
	attr := func(se xml.StartElement, name string) string {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	num := func(se xml.StartElement, name string) float64 {
		v, _ := strconv.ParseFloat(attr(se, name), 64)
		return v
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not well-formed XML: %w", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			top := stack[len(stack)-1]
			f := top
			if s := attr(tk, "font-size"); s != "" {
				f.size, _ = strconv.ParseFloat(s, 64)
			}
			switch tk.Name.Local {
			case "svg":
				if doc.root == "" {
					doc.w, doc.h = num(tk, "width"), num(tk, "height")
					for _, a := range tk.Attr {
						doc.root += " " + a.Name.Local + "=" + strconv.Quote(a.Value)
					}
				}
			case "g":
				if m := translate.FindStringSubmatch(attr(tk, "transform")); m != nil {
					x, _ := strconv.ParseFloat(m[1], 64)
					y, _ := strconv.ParseFloat(m[2], 64)
					f.dx, f.dy = f.dx+x, f.dy+y
				}
				if attr(tk, "class") == "panel" {
					doc.panels = append(doc.panels, svgPanel{})
					f.panel = len(doc.panels) - 1
				}
			case "rect":
				r := svgRect{num(tk, "x") + f.dx, num(tk, "y") + f.dy, num(tk, "width"), num(tk, "height")}
				if f.panel >= 0 {
					switch attr(tk, "class") {
					case "panel-box":
						doc.panels[f.panel].box = box{r.x, r.y, r.x + r.w, r.y + r.h}
					case "shade":
						doc.panels[f.panel].shades = append(doc.panels[f.panel].shades, r)
					}
				}
			case "line":
				if attr(tk, "class") == "axis-line" {
					doc.axis = [2]float64{num(tk, "x1") + f.dx, num(tk, "x2") + f.dx}
				}
			case "title":
				inTitle++
			case "text":
				tx := svgText{x: num(tk, "x") + f.dx, y: num(tk, "y") + f.dy, size: f.size,
					anchor: attr(tk, "text-anchor"), class: attr(tk, "class"), at: attr(tk, "data-at"), key: attr(tk, "data-key")}
				if tr := attr(tk, "transform"); tr != "" {
					if m := translate.FindStringSubmatch(tr); m != nil {
						x, _ := strconv.ParseFloat(m[1], 64)
						y, _ := strconv.ParseFloat(m[2], 64)
						tx.x, tx.y = x+f.dx, y+f.dy
					}
					tx.rotated = rotate.MatchString(tr)
				}
				cur = &tx
			}
			stack = append(stack, f)
		case xml.EndElement:
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch tk.Name.Local {
			case "title":
				inTitle--
			case "text":
				if cur != nil {
					cur.content = strings.TrimSpace(cur.content)
					doc.texts = append(doc.texts, *cur)
					if f.panel >= 0 {
						doc.panels[f.panel].texts = append(doc.panels[f.panel].texts, *cur)
					}
				}
				cur = nil
			}
		case xml.CharData:
			if cur != nil && inTitle == 0 {
				cur.content += string(tk)
			}
		}
	}
	if doc.w == 0 || doc.h == 0 {
		return nil, fmt.Errorf("the outer <svg> has no width and height")
	}
	return doc, nil
}
