package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// TestFiguresKeepTheirTimes runs every scenario with its golden flags and
// reads each SVG it wrote beside the report against the report's body, not
// against the numbers the plotter was given:
//   - a timeline mark names its instant as the body prints it (data-at) and
//     its subject (data-key); the body's timeline must have a line at that
//     instant naming that subject (a line stands for one mark of each symbol
//     at most), and the mark must sit within 2 px of where the SVG's own
//     axis (its tick labels, their x and the axis's "since" stamp) puts that
//     instant. The body read is the --verbose run's, whose timeline folds no
//     lines away; its marks must be the default run's;
//   - a shaded outage spans, on the same reading of the axis, the outage
//     the body's setup states;
//   - a lane's label ends before the plot (the axis, and half a mark
//     either side) and its note starts after it; no text is cut by the
//     picture's edge or overprints another, text extents estimated from the
//     font size and the characters;
//   - stacked panels do not overlap and keep their text inside them.
func TestFiguresKeepTheirTimes(t *testing.T) {
	marks, figures := 0, 0
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			body, svgs := figureRun(t, s)
			var events []event
			var verboseSVGs []string
			if hasMarks(t, svgs) { // a run without timeline marks is not run again
				var verbose string
				verbose, verboseSVGs = figureRun(t, s, "--verbose")
				events = timelineEvents(verbose)
				if len(svgs) != len(verboseSVGs) {
					t.Fatalf("%d figures by default, %d with --verbose", len(svgs), len(verboseSVGs))
				}
			}
			for i, path := range svgs {
				raw, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				name := filepath.Base(path)
				p, err := parseSVG(raw)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				figures++
				if !strings.Contains(p.root, "viewBox=") {
					t.Errorf("%s: the outer <svg> has no viewBox (the index scales figures by it)", name)
				}
				if verboseSVGs != nil {
					if v, err := os.ReadFile(verboseSVGs[i]); err != nil || markLines(v) != markLines(raw) {
						t.Errorf("%s: its marks differ from the --verbose run's (%v)", name, err)
					}
				}
				marks += checkMarks(t, name, p, events)
				checkShades(t, name, p, body)
				checkTextBoxes(t, name, p)
				checkPanels(t, name, p)
			}
		})
	}
	t.Logf("checked %d marks in %d figures against their report bodies", marks, figures)
	if marks < 600 || figures < 40 {
		t.Errorf("checked %d marks in %d figures, want at least 600 in 40: the figures lost their data-at marks", marks, figures)
	}
}

// hasMarks is whether any of svgs draws a timeline mark.
func hasMarks(t *testing.T, svgs []string) bool {
	t.Helper()
	for _, path := range svgs {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if markLines(raw) != "" {
			return true
		}
	}
	return false
}

// markLines are the lines of an SVG that draw timeline marks.
func markLines(svg []byte) string {
	var b strings.Builder
	for _, l := range strings.Split(string(svg), "\n") {
		if strings.Contains(l, `class="mark"`) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// figureRun runs s as the golden test does and returns the comparable body
// of its report and the SVG files written beside it.
func figureRun(t *testing.T, s *scenarios.Scenario, extra ...string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var out, stderr bytes.Buffer
	args := append(append([]string{s.Name, "--report-dir", dir}, s.GoldenArgs...), extra...)
	if code := Main(args, &out, &stderr); code != cmdutil.ExitOK {
		t.Fatalf("exit %d, want 0; stderr: %s", code, stderr.String())
	}
	matches, _ := filepath.Glob(filepath.Join(dir, s.Group(), report.TitleCase(s.Name)+"-RunReport-*.txt"))
	if len(matches) != 1 {
		t.Fatalf("found %d reports, want 1", len(matches))
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	body, ok := report.ComparableBody(string(raw))
	if !ok {
		t.Fatal("report has no run-metadata header")
	}
	svgs, _ := filepath.Glob(strings.TrimSuffix(matches[0], ".txt") + "-*.svg")
	return body, svgs
}

// stampPattern is a scenario-clock instant as the timelines print it:
// 09:00:00.602Z, or 09:00:00.602Z+1d on a later day.
const stampPattern = `\d\d:\d\d:\d\d\.\d{3}Z(?:\+\d+d)?`

var (
	timelineLine = regexp.MustCompile(`^(` + stampPattern + `)  (.*)$`)
	foldedLine   = regexp.MustCompile(`…\s+(\d+) records of (?:orders? ([\d, ]+)|\d+ other orders) applied`)
	stampOnly    = regexp.MustCompile(`^` + stampPattern + `$`)
	sinceStamp   = regexp.MustCompile(`^scenario clock, (ms|s|min) since (` + stampPattern + `)$`)
)

// event is one line of a body's timeline: its instant, its text (with its
// continuation lines) and how many marks of one symbol it can stand for (1,
// or the count of a folded line: "… 15 records of orders 41, 43 applied",
// "attempts 3..10/∞ each FAILED the same way").
type event struct {
	stamp  string
	text   string
	room   int
	orders []string // the orders a folded line of records lists; nil for another line
}

var attemptsFold = regexp.MustCompile(`attempts (\d+)\.\.(\d+)/\S+ each FAILED`)

// timelineEvents reads every timeline line of body: a line that starts with
// a scenario-clock stamp, with the indented lines that continue it.
func timelineEvents(body string) []event {
	var out []event
	open := false
	for _, line := range strings.Split(body, "\n") {
		if m := timelineLine.FindStringSubmatch(line); m != nil {
			e := event{stamp: m[1], text: m[2], room: 1}
			if f := foldedLine.FindStringSubmatch(m[2]); f != nil {
				e.room, _ = strconv.Atoi(f[1])
				e.orders = strings.Split(strings.ReplaceAll(f[2], " ", ""), ",")
				if f[2] == "" {
					e.orders = []string{"*"}
				}
			}
			if f := attemptsFold.FindStringSubmatch(m[2]); f != nil {
				from, _ := strconv.Atoi(f[1])
				to, _ := strconv.Atoi(f[2])
				e.room = to - from + 1
			}
			out = append(out, e)
			open = true
			continue
		}
		if open && strings.HasPrefix(line, "        ") && strings.TrimSpace(line) != "" {
			out[len(out)-1].text += " " + strings.TrimSpace(line)
			continue
		}
		open = false
	}
	return out
}

// names is whether e's line names key (a whole token: 42#1 is not 42#12).
func (e event) names(key string) bool {
	if e.orders != nil {
		order, _, _ := strings.Cut(key, "#")
		for _, o := range e.orders {
			if o == order || o == "*" {
				return true
			}
		}
		return false
	}
	re := regexp.MustCompile(`(^|[^\w#-])` + regexp.QuoteMeta(key) + `($|[^\w#])`)
	return re.MatchString(e.text)
}

// stampTime reads a timeline stamp as a duration since midnight of day 0.
func stampTime(s string) (time.Duration, error) {
	day := 0
	if i := strings.Index(s, "+"); i >= 0 {
		d, err := strconv.Atoi(strings.TrimSuffix(s[i+1:], "d"))
		if err != nil {
			return 0, err
		}
		day, s = d, s[:i]
	}
	at, err := time.Parse("15:04:05.000Z", s)
	if err != nil {
		return 0, err
	}
	return time.Duration(day)*24*time.Hour + at.Sub(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)), nil
}

// timeAxis is an SVG's reading of its own time axis: x = x0 + perUnit·t.
type timeAxis struct {
	origin  time.Duration // since midnight, from the axis's "since" stamp
	unit    time.Duration
	x0      float64
	perUnit float64 // pixels per unit
}

func (a timeAxis) x(at time.Duration) float64 {
	return a.x0 + a.perUnit*float64(at-a.origin)/float64(a.unit)
}

// readAxis reads the axis from texts of class "tick" (numbers, or numbers
// followed by the unit) and the axis name of class "axis" among texts.
func readAxis(texts []svgText) (timeAxis, error) {
	var a timeAxis
	var name string
	type tick struct{ v, x float64 }
	var ts []tick
	for _, tx := range texts {
		switch tx.class {
		case "axis":
			name = tx.content
		case "tick":
			v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(tx.content, " s"), " ms"), 64)
			if err != nil {
				return a, fmt.Errorf("tick label %q is not a number", tx.content)
			}
			ts = append(ts, tick{v, tx.x})
		}
	}
	m := sinceStamp.FindStringSubmatch(name)
	if m == nil {
		return a, fmt.Errorf("axis name %q does not say since when it counts", name)
	}
	a.unit = map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "min": time.Minute}[m[1]]
	origin, err := stampTime(m[2])
	if err != nil {
		return a, err
	}
	a.origin = origin
	if len(ts) < 2 {
		return a, fmt.Errorf("%d tick labels, want at least 2", len(ts))
	}
	first, last := ts[0], ts[len(ts)-1]
	if last.v == first.v {
		return a, fmt.Errorf("tick labels do not differ: %v", ts)
	}
	a.perUnit = (last.x - first.x) / (last.v - first.v)
	a.x0 = first.x - a.perUnit*first.v
	seen := map[float64]bool{}
	for _, tk := range ts {
		if seen[tk.v] {
			return a, fmt.Errorf("tick label %v twice", tk.v)
		}
		seen[tk.v] = true
		if d := math.Abs(a.x0 + a.perUnit*tk.v - tk.x); d > 0.5 {
			return a, fmt.Errorf("tick %v at x=%.1f is %.1f px off the line through the others", tk.v, tk.x, d)
		}
	}
	return a, nil
}

// checkMarks checks every timeline mark of p against the body's events and
// returns how many it checked.
func checkMarks(t *testing.T, name string, p *svgDoc, events []event) int {
	t.Helper()
	var marks []svgText
	for _, tx := range p.texts {
		if tx.class == "mark" {
			marks = append(marks, tx)
		}
	}
	if len(marks) == 0 {
		return 0
	}
	axis, err := readAxis(p.texts)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return 0
	}
	// A line may tell two events of one message ("failed → DEAD-LETTERED":
	// a ✗ and a ☠), never two of one kind: it has room for one mark of each
	// symbol (a folded line, for as many as it counts).
	// The plot is the axis and half a mark either side: a lane's label
	// ends before it, its note starts after it.
	plot := [2]float64{p.axis[0] - 6.5, p.axis[1] + 6.5}
	for _, tx := range p.texts {
		b := tx.box()
		switch {
		case tx.class == "label" && b.x1 > plot[0]:
			t.Errorf("%s: row label %q ends at x=%.1f, inside the plot (from x=%.1f)", name, tx.content, b.x1, plot[0])
		case tx.class == "note" && tx.content != "" && b.x0 < plot[1]:
			t.Errorf("%s: note %q starts at x=%.1f, inside the plot (to x=%.1f)", name, tx.content, b.x0, plot[1])
		}
	}
	room := make([]map[string]int, len(events))
	for i := range events {
		room[i] = map[string]int{}
	}
	free := func(i int, symbol string) bool {
		used := room[i][symbol]
		if events[i].orders != nil {
			used = 0
			for _, n := range room[i] {
				used += n
			}
		}
		return used < events[i].room
	}
	for _, m := range marks {
		if !stampOnly.MatchString(m.at) || m.key == "" {
			t.Errorf("%s: mark %q has no parseable instant and subject (data-at %q, data-key %q)", name, m.content, m.at, m.key)
			continue
		}
		found := -1
		for i, e := range events {
			if e.stamp == m.at && free(i, m.content) && e.names(m.key) {
				found = i
				break
			}
		}
		if found < 0 {
			t.Errorf("%s: mark %s of %s at %s: no line of the body's timeline at %s names %s (or each one that does already has its mark)",
				name, m.content, m.key, m.at, m.at, m.key)
			continue
		}
		room[found][m.content]++
		at, _ := stampTime(events[found].stamp)
		if want := axis.x(at); math.Abs(m.x-want) > 2 {
			t.Errorf("%s: mark %s of %s at %s is drawn at x=%.1f; the axis puts %s at x=%.1f (%.1f px away)",
				name, m.content, m.key, m.at, m.x, m.at, want, m.x-want)
		}
	}
	return len(marks)
}

// outageLine is the setup line stating a gateway outage.
var outageLine = regexp.MustCompile(`(?m)^Outage .* from (` + stampPattern + `) until (` + stampPattern + `)`)

// checkShades checks that an SVG whose body states an outage shades it in
// each panel, from its start to its end on the panel's axis.
func checkShades(t *testing.T, name string, p *svgDoc, body string) {
	t.Helper()
	m := outageLine.FindStringSubmatch(body)
	if m == nil || len(p.panels) == 0 {
		return
	}
	from, _ := stampTime(m[1])
	to, _ := stampTime(m[2])
	for i, pn := range p.panels {
		axis, err := readAxis(pn.texts)
		if err != nil {
			t.Errorf("%s panel %d: %v", name, i+1, err)
			continue
		}
		if len(pn.shades) != 1 {
			t.Errorf("%s panel %d: %d shaded spans, want the outage %s–%s", name, i+1, len(pn.shades), m[1], m[2])
			continue
		}
		sh := pn.shades[0]
		if d := math.Max(math.Abs(sh.x-axis.x(from)), math.Abs(sh.x+sh.w-axis.x(to))); d > 2 {
			t.Errorf("%s panel %d: the outage is shaded from x=%.1f to %.1f; the axis puts %s–%s at %.1f–%.1f",
				name, i+1, sh.x, sh.x+sh.w, m[1], m[2], axis.x(from), axis.x(to))
		}
	}
}

// checkTextBoxes checks that no text runs past the picture's edge and no
// two texts overprint each other.
func checkTextBoxes(t *testing.T, name string, p *svgDoc) {
	t.Helper()
	const slack = 0.5
	for i, a := range p.texts {
		b := a.box()
		if b.x0 < -slack || b.y0 < -slack || b.x1 > p.w+slack || b.y1 > p.h+slack {
			t.Errorf("%s: text %q (%.0f,%.0f)-(%.0f,%.0f) is cut by the picture's edge (%.0f×%.0f)",
				name, a.content, b.x0, b.y0, b.x1, b.y1, p.w, p.h)
		}
		for _, c := range p.texts[i+1:] {
			if o := b.overlap(c.box()); o > slack {
				t.Errorf("%s: text %q overprints %q", name, a.content, c.content)
			}
		}
	}
}

// checkPanels checks that stacked panels do not overlap and that every text
// of a panel lies inside it.
func checkPanels(t *testing.T, name string, p *svgDoc) {
	t.Helper()
	for i, a := range p.panels {
		for _, tx := range a.texts {
			b := tx.box()
			if b.y0 < a.box.y0-0.5 || b.y1 > a.box.y1+0.5 {
				t.Errorf("%s: panel %d's text %q (y %.0f–%.0f) runs out of its panel (y %.0f–%.0f)",
					name, i+1, tx.content, b.y0, b.y1, a.box.y0, a.box.y1)
			}
		}
		for j, c := range p.panels[i+1:] {
			if a.box.overlap(c.box) > 0.5 {
				t.Errorf("%s: panels %d and %d overlap", name, i+1, i+j+2)
			}
		}
	}
}
