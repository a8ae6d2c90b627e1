package report

import (
	"strings"
	"testing"
)

func TestDiffIsEmptyForTheSameBodyAndUnifiedOtherwise(t *testing.T) {
	body := "Day 16\n\nVERDICT: ok\n"
	if d := Diff("a", body, "b", body); d != "" {
		t.Errorf("Diff of the same body = %q, want empty", d)
	}
	d := Diff("a.txt", body, "b.txt", strings.Replace(body, "ok", "broken", 1))
	// difflib.SplitLines ends every body with an empty line of its own: the
	// last context line, " ", is that one.
	want := "--- a.txt\n+++ b.txt\n@@ -1,4 +1,4 @@\n Day 16\n \n-VERDICT: ok\n+VERDICT: broken\n \n"
	if d != want {
		t.Errorf("Diff =\n%s\nwant\n%s", d, want)
	}
}

func TestComparableBodySkipsMeasuredLinesOnly(t *testing.T) {
	text := HeaderStart + "\nstarted: x\n" + HeaderEnd + "\nrate 12 msg/s " + MeasuredMarker + "\nkept " + MeasuredMarker + " here\nlast\n"
	body, ok := ComparableBody(text)
	if !ok || body != "kept "+MeasuredMarker+" here\nlast\n" {
		t.Errorf("ComparableBody = %q, %v; want the lines not ending in %s", body, ok, MeasuredMarker)
	}
}
