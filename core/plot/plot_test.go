package plot

import (
	"encoding/xml"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/clock"
)

func wellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return
			}
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

func TestBars(t *testing.T) {
	f := Bars("schedule", "Waits", []Bar{{"attempt 1", 200, "200 ms"}, {"attempt 2", 400, "400 ms"}, {"attempt 3", 50, "50 ms"}}, 8, 0)
	want := "Waits\n" +
		"attempt 1 │████     200 ms\n" +
		"attempt 2 │████████ 400 ms\n" +
		"attempt 3 │█        50 ms\n"
	if f.Text != want {
		t.Errorf("text =\n%s\nwant\n%s", f.Text, want)
	}
	wellFormed(t, f.SVG)
	if !strings.Contains(f.SVG, `width="480.0"`) || !strings.Contains(f.SVG, `width="240.0"`) {
		t.Errorf("SVG bars not scaled to the longest: %s", f.SVG)
	}
}

func TestColumnsMergesToFitAndKeepsNonEmptyBuckets(t *testing.T) {
	counts := []int{8, 0, 0, 1, 0, 0}
	f := Columns("wave", "Wave", counts, func(i int) string { return []string{"0", "1", "2", "3", "4", "5 s"}[i] }, 2, 3)
	lines := strings.Split(f.Text, "\n")
	// Three columns of two buckets each: 8, 1, 0.
	if lines[1] != "    8 │█  " || lines[2] != "      │█▂ " {
		t.Errorf("columns =\n%s", f.Text)
	}
	if !strings.Contains(f.Text, "(each column sums 2 buckets)") {
		t.Error("merging not stated")
	}
	wellFormed(t, f.SVG)
	if got := strings.Count(f.SVG, "<rect x="); got != 2 {
		t.Errorf("SVG has %d bars, want 2 (one per non-empty bucket)", got)
	}
}

func TestTimelinePlacesMarksOnTheAxis(t *testing.T) {
	lanes := []Lane{
		{Label: "PAY-001", Marks: []Mark{{At: 0, Symbol: "✓"}}},
		{Label: "PAY-003", Marks: []Mark{{At: 0, Symbol: "✗"}, {At: 201 * time.Millisecond, Symbol: "✗"},
			{At: 602 * time.Millisecond, Symbol: "☠"}}, Note: "dead-lettered"},
	}
	f := Timeline("timeline", "Attempts", lanes, clock.Start, 602*time.Millisecond, 7, "✓ processed")
	lines := strings.Split(f.Text, "\n")
	if lines[1] != "PAY-001 │✓······│ " || lines[2] != "PAY-003 │✗·✗···☠│ dead-lettered" {
		t.Errorf("timeline =\n%s", f.Text)
	}
	wellFormed(t, f.SVG)
}

func TestPanelsShareOneScale(t *testing.T) {
	svg := PanelsSVG("Waves", []Panel{{Title: "tall", Counts: []int{10, 0}}, {Title: "flat", Counts: []int{5, 5}}}, func(i int) string { return "b" })
	wellFormed(t, svg)
	// Every panel is drawn against the highest peak of all: a count of 5 is half as tall as 10.
	if !strings.Contains(svg, `height="120.00"`) || strings.Count(svg, `height="60.00"`) != 2 {
		t.Errorf("panels not on one scale:\n%s", svg)
	}
}

func TestBarsOnASharedScale(t *testing.T) {
	f := Bars("b", "Half", []Bar{{"a", 200, ""}}, 8, 400)
	if want := "Half\na │████\n"; f.Text != want {
		t.Errorf("text = %q, want %q", f.Text, want)
	}
}

func TestTimelineTicksAreRoundAndCoverTheSpan(t *testing.T) {
	for _, c := range []struct {
		span time.Duration
		want string
	}{
		{0, "[0s]"},
		{time.Millisecond, "[0s 1ms]"},
		{3 * time.Millisecond, "[0s 1ms 2ms 3ms]"},
		{4 * time.Millisecond, "[0s 1ms 2ms 3ms 4ms]"},
		{1400 * time.Millisecond, "[0s 500ms 1s]"},
		{3 * time.Second, "[0s 1s 2s 3s]"},
		{95 * time.Second, "[0s 20s 40s 1m0s 1m20s]"},
		{30*time.Minute + time.Second, "[0s 10m0s 20m0s 30m0s]"},
	} {
		if got := fmt.Sprint(ticks(c.span)); got != c.want {
			t.Errorf("ticks(%v) = %s, want %s", c.span, got, c.want)
		}
	}
}

// TestTimelineTickLabelsDiffer: on a 1 ms run the labels once read 0 0 0 0 0 1;
// over spans from 1 ms to an hour every label differs from its neighbours and
// counts up in the axis's unit.
func TestTimelineTickLabelsDiffer(t *testing.T) {
	for span := time.Millisecond; span <= time.Hour; span = span*3/2 + time.Millisecond {
		unit := tickUnitOf(span)
		ts := ticks(span)
		if len(ts) < 2 {
			t.Errorf("ticks(%v) = %v: fewer than two", span, ts)
			continue
		}
		seen := map[string]bool{}
		for _, tk := range ts {
			l := tickLabel(tk, unit)
			if seen[l] {
				t.Errorf("ticks(%v) label %q twice: %v", span, l, ts)
			}
			seen[l] = true
			if tk > span {
				t.Errorf("ticks(%v) reach %v, past the span", span, tk)
			}
		}
	}
}

func TestNiceTicksAreRoundAndReachTheTop(t *testing.T) {
	for _, c := range []struct {
		top  float64
		want string
	}{
		{0, "[0]"},
		{980, "[0 200 400 600 800]"},
		{400, "[0 100 200 300 400]"},
		{7, "[0 2 4 6]"},
		{0.3, "[0 0.1 0.2 0.3]"},
		{1, "[0 0.2 0.4 0.6 0.8 1]"},
	} {
		if got := fmt.Sprint(niceTicks(c.top)); got != c.want {
			t.Errorf("niceTicks(%v) = %s, want %s", c.top, got, c.want)
		}
	}
}

func TestChartsNameTheirAxes(t *testing.T) {
	label := func(i int) string { return fmt.Sprintf("t%d", i) }
	cols := Columns("c", "Depth", []int{1, 5, 3}, label, 4, 10, Axes{X: "scenario time", Y: "messages"})
	bars := Bars("b", "Waits", []Bar{{Label: "a", Value: 40}}, 20, 0, Axes{X: "wait (s)"})
	panels := PanelsSVG("Wave", []Panel{{Title: "p", Counts: []int{2, 4}}}, label, Axes{X: "time (ms)", Y: "calls"})
	for _, c := range []struct{ svg, want string }{
		{cols.SVG, ">scenario time<"}, {cols.SVG, ">messages<"}, {cols.SVG, ">t2<"}, {cols.SVG, ">4<"},
		{bars.SVG, ">wait (s)<"}, {bars.SVG, ">40<"},
		{panels, ">time (ms)<"}, {panels, ">calls<"},
	} {
		wellFormed(t, c.svg)
		if !strings.Contains(c.svg, c.want) {
			t.Errorf("want %s in\n%s", c.want, c.svg)
		}
	}
}

// TestTimelineStacksMarksAtOneInstant: marks at one instant (or closer than
// a glyph) stand in a column at their own x, one above the other; a mark
// alone stays on its lane's line; nothing moves sideways.
func TestTimelineStacksMarksAtOneInstant(t *testing.T) {
	span := 60 * time.Second
	lanes := []Lane{{Label: "NTF-001", Marks: []Mark{
		{At: 30 * time.Second, Symbol: "✓"}, // given out of time order
		{At: 0, Symbol: "•"}, {At: 0, Symbol: "✗"}, {At: 500 * time.Millisecond, Symbol: "☠"},
	}}}
	f := Timeline("t", "T", lanes, clock.Start, span, 20, "")
	wellFormed(t, f.SVG)
	re := regexp.MustCompile(`<text class="mark" data-at="([^"]+)" data-key="NTF-001" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]+)<`)
	ms := re.FindAllStringSubmatch(f.SVG, -1)
	if len(ms) != 4 {
		t.Fatalf("%d marks with data-at and data-key, want 4:\n%s", len(ms), f.SVG)
	}
	var x0 float64
	fmt.Sscan(regexp.MustCompile(`<line x1="([\d.]+)"`).FindStringSubmatch(f.SVG[strings.Index(f.SVG, "NTF-001</text>"):])[1], &x0)
	type got struct {
		at, sym string
		x, y    float64
	}
	byAt := map[string][]got{}
	for _, m := range ms {
		var g got
		g.at, g.sym = m[1], m[4]
		fmt.Sscan(m[2], &g.x)
		fmt.Sscan(m[3], &g.y)
		byAt[m[1]] = append(byAt[m[1]], g)
	}
	want := map[string]float64{"09:00:00.000Z": 0, "09:00:00.500Z": 0.5, "09:00:30.000Z": 30}
	ys := map[float64]int{}
	for at, gs := range byAt {
		for _, g := range gs {
			if x := x0 + want[at]/60*axisWidth; math.Abs(g.x-x) > 0.1 {
				t.Errorf("%s at %s drawn at x=%.1f, want %.1f", g.sym, at, g.x, x)
			}
			if at != "09:00:30.000Z" {
				ys[g.y]++
			}
		}
	}
	if len(ys) != 3 {
		t.Errorf("the three marks within half a second share %d heights, want 3 (stacked): %v", len(ys), ys)
	}
	if lone := byAt["09:00:30.000Z"][0]; lone.y != slices.Max(slices.Collect(maps.Keys(ys))) {
		t.Errorf("the lone mark is at y=%.1f, not on the lane (y=%.1f)", lone.y, slices.Max(slices.Collect(maps.Keys(ys))))
	}
}

// TestTimelineCountsWhatATallStackCannotShow: 50 marks at one instant show
// as maxStack-1 marks and a "+39" at the top, so the picture keeps its height;
// a lone mark at the cap's height is drawn, not counted.
func TestTimelineCountsWhatATallStackCannotShow(t *testing.T) {
	var marks []Mark
	for range 50 {
		marks = append(marks, Mark{At: time.Second, Symbol: "✓"})
	}
	f := Timeline("t", "T", []Lane{{Label: "p0", Marks: marks}}, clock.Start, 2*time.Second, 20, "")
	wellFormed(t, f.SVG)
	if got := strings.Count(f.SVG, `class="mark"`); got != maxStack-1 {
		t.Errorf("%d marks drawn, want %d", got, maxStack-1)
	}
	if !strings.Contains(f.SVG, `data-at="09:00:01.000Z" data-count="39"`) || !strings.Contains(f.SVG, ">+39<") {
		t.Errorf("no +39 for the marks above the cap:\n%s", f.SVG)
	}
	f = Timeline("t", "T", []Lane{{Label: "p0", Marks: marks[:maxStack]}}, clock.Start, 2*time.Second, 20, "")
	if got := strings.Count(f.SVG, `class="mark"`); got != maxStack || strings.Contains(f.SVG, `class="more"`) {
		t.Errorf("%d marks at one instant: %d drawn (want all) and a count %v", maxStack, got, strings.Contains(f.SVG, `class="more"`))
	}
}
