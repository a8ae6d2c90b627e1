package plot

import (
	"encoding/xml"
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
