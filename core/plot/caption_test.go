package plot

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestCaptioned(t *testing.T) {
	f := Bars("waits", "Waits per attempt", []Bar{{Label: "attempt 1", Value: 100, Note: "100 ms"}}, 20, 0)
	c := f.Captioned("jitter-wave --seed=7 <&>")
	if c.Text != f.Text || c.Name != f.Name {
		t.Error("Captioned changed the text form or the name")
	}
	for _, want := range []string{`height="`, "<title>jitter-wave --seed=7 &lt;&amp;&gt; — Waits per attempt</title>", ">jitter-wave --seed=7 &lt;&amp;&gt;</text>", f.SVG} {
		if !strings.Contains(c.SVG, want) {
			t.Errorf("captioned SVG lacks %q:\n%s", want, c.SVG)
		}
	}
	// Still one well-formed XML document.
	d := xml.NewDecoder(strings.NewReader(c.SVG))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("captioned SVG is not well-formed: %v", err)
			}
			break
		}
	}
	if f.Captioned("").SVG != f.SVG {
		t.Error("an empty caption changed the SVG")
	}
}

// TestCaptionedWrapsALongCaption: a run with many flags once ran its caption
// off the band; now every line of it ends inside the figure, the lines
// together say the whole caption, and the figure moves down by the band.
func TestCaptionedWrapsALongCaption(t *testing.T) {
	f := Bars("waits", "Waits", []Bar{{Label: "attempt 1", Value: 100}}, 20, 0)
	caption := "session-16-retry-with-dead-letter"
	for i := range 12 {
		caption += fmt.Sprintf(" --flag-number-%d=value-%d", i, i)
	}
	c := f.Captioned(caption)
	lines := regexp.MustCompile(`<text class="caption" x="10" y="(\d+)" fill="#555">([^<]*)</text>`).FindAllStringSubmatch(c.SVG, -1)
	if len(lines) < 2 {
		t.Fatalf("a %d-character caption on a %d px figure is on %d line(s), want it wrapped", len(caption), 840, len(lines))
	}
	var words []string
	for _, l := range lines {
		if w := 10 + textWidth(l[2], fontSize); w > 840 {
			t.Errorf("caption line %q ends at x=%.0f, past the figure's 840 px", l[2], w)
		}
		words = append(words, l[2])
	}
	if strings.Join(words, " ") != caption {
		t.Errorf("the caption's lines say %q, want %q", strings.Join(words, " "), caption)
	}
	band := 6 + 16*len(lines)
	if !strings.Contains(c.SVG, fmt.Sprintf(`<g transform="translate(0,%d)">`, band)) {
		t.Errorf("the figure is not moved below a %d px band:\n%s", band, c.SVG)
	}
}
