package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// gridScript records, once the page has loaded, the index's grid cell by
// cell, whether the scenario sections are folded, where the grid is, and
// (with every section opened, as a reader clicking each would) whether
// anything is wider than the window and each failing row's verdict.
const gridScript = `<script>
window.addEventListener('load', function () {
  var all = function (sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); };
  var grid = document.getElementById('grid');
  var out = {cells: all('td.cell').map(function (c) {
      var a = c.querySelector('a');
      return {student: c.dataset.student || '', scenario: c.dataset.scenario || '', report: c.dataset.report || '',
        text: c.textContent, cls: c.className, href: a ? a.getAttribute('href') : ''};
    }),
    sections: all('details.scenario').length, folded: all('details.scenario:not([open])').length,
    gridTop: grid ? grid.getBoundingClientRect().top : -1, innerHeight: window.innerHeight};
  all('details').forEach(function (d) { d.open = true; });
  var de = document.documentElement;
  out.scrollWidth = de.scrollWidth;
  out.clientWidth = de.clientWidth;
  out.wide = all('body *').filter(function (e) { return e.getBoundingClientRect().right > window.innerWidth + 1; })
    .slice(0, 5).map(function (e) { return e.tagName + ': ' + (e.textContent || '').slice(0, 60); });
  out.verdicts = all('tr.run').map(function (tr) { return tr.cells[1].textContent; });
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
});
</script>`

type gridSeen struct {
	Cells []struct {
		Student, Scenario, Report, Text, Cls, Href string
	} `json:"cells"`
	Sections    int      `json:"sections"`
	Folded      int      `json:"folded"`
	GridTop     float64  `json:"gridTop"`
	InnerHeight float64  `json:"innerHeight"`
	ScrollWidth int      `json:"scrollWidth"`
	ClientWidth int      `json:"clientWidth"`
	Wide        []string `json:"wide"`
	Verdicts    []string `json:"verdicts"`
}

// probeWith loads a copy of page with script before </body> (or, for an
// SVG, before </svg>) at size and decodes what the script wrote into the
// element with id probe.
func probeWith(t *testing.T, exe, size, page, script, end string, into any) {
	t.Helper()
	probeAt(t, exe, size, page, "", script, end, into)
}

// probeAt is probeWith with the page opened at a fragment (#3), "" none.
func probeAt(t *testing.T, exe, size, page, fragment, script, end string, into any) {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndex(string(raw), end)
	if i < 0 {
		t.Fatalf("%s has no %s", page, end)
	}
	probed := filepath.Join(filepath.Dir(page), "probe-"+filepath.Base(page))
	if err := os.WriteFile(probed, []byte(string(raw[:i])+script+string(raw[i:])), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probed)
	dom := chromiumAt(t, exe, size, "--virtual-time-budget=10000", "--dump-dom", "file://"+probed+fragment)
	m := regexp.MustCompile(`(?s)<(?:pre|desc) id="probe">(.*?)</(?:pre|desc)>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe did not run in %s at %s", filepath.Base(page), size)
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), into); err != nil {
		t.Fatal(err)
	}
}

var (
	headerChecks = regexp.MustCompile(`(?m)^checks:   (\d+/\d+) passed$`)
	headerExit   = regexp.MustCompile(`(?m)^exit:     (\d+)$`)
	headerRecord = regexp.MustCompile(`(?m)^record:   (\{.*\})$`)
)

// aRun is one run the test made, as its report file says.
type aRun struct {
	student, scenario, report string // report: relative to the class folder
	checks                    string // the header's passed/total
	exit                      string
	failed                    []string // the record's checks that did not hold, in order
}

// TestIndexGridOnAProjector builds a class folder run by run (several runs
// of one scenario by one student, two in the same second, failing flags, a
// failing grade with ten failed checks) and opens its index in Chromium at
// 800 px: the grid's cells are the newest run of each student and
// scenario, with that report's checks as its header records them, and a
// cell for each pair with no run; the sections are folded and the grid is
// on the first screen; nothing is wider than the window; a failing
// verdict names its first three failed checks and how many failed, not the
// fourth. The report page and a figure opened alone fit 800 px too, and a
// figure opened alone at 1920 px is drawn at its own size.
// OUTBOXLAB_SCREENSHOTS=DIR takes screenshots at 800, 1366 and 1920 px there.
func TestIndexGridOnAProjector(t *testing.T) {
	exe := chromiumOrSkip(t)
	dir := t.TempDir()
	ok16 := buildTestWorker(t, "ok16", t.TempDir())
	var runs []aRun
	do := func(student string, args ...string) {
		t.Helper()
		before, _ := filepath.Glob(filepath.Join(dir, student, "*", "*.txt"))
		code, _, stderr := runLab(t, append([]string{args[0], "--report-dir", filepath.Join(dir, student)}, args[1:]...)...)
		if code != ExitOK && code != ExitChecksFailed {
			t.Fatalf("%s %v: exit %d: %s", student, args, code, stderr)
		}
		after, _ := filepath.Glob(filepath.Join(dir, student, "*", "*.txt"))
		var made []string
		for _, f := range after {
			if !slices.Contains(before, f) {
				made = append(made, f)
			}
		}
		if len(made) != 1 {
			t.Fatalf("%s %v wrote %v, want one report", student, args, made)
		}
		raw, _ := os.ReadFile(made[0])
		rel, _ := filepath.Rel(dir, made[0])
		r := aRun{student: student, report: filepath.ToSlash(rel)}
		var rec struct {
			Scenario string `json:"scenario"`
			Checks   []struct {
				Name   string `json:"name"`
				Passed bool   `json:"passed"`
			} `json:"checks"`
		}
		m, e, c := headerRecord.FindSubmatch(raw), headerExit.FindSubmatch(raw), headerChecks.FindSubmatch(raw)
		if m == nil || e == nil || c == nil || json.Unmarshal(m[1], &rec) != nil {
			t.Fatalf("%s: no record, exit or checks in its header", made[0])
		}
		r.scenario, r.exit, r.checks = rec.Scenario, string(e[1]), string(c[1])
		for _, ch := range rec.Checks {
			if !ch.Passed {
				r.failed = append(r.failed, ch.Name)
			}
		}
		runs = append(runs, r)
	}
	do("alice", "session-16-poison-message-retried-forever")
	do("alice", "retry-with-dead-letter", "--dead-letter=false")
	do("alice", "retry-with-dead-letter") // the same second, often: -2 tells them apart
	do("bob", "retry-with-dead-letter")
	do("bob", "retry-with-dead-letter", "--max-attempts", "5", "--poison-key", "PAY-002,PAY-003,PAY-004")
	do("carol", "backoff-schedules")
	do("dave", "grade", "session-16", "--variations", "3", "--shrink=false", "--", "sh", "-c", "OK16_BUG=count-on-failure exec "+ok16)
	if code, _, stderr := runLab(t, "index", "--report-dir", dir); code != ExitOK {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	newest := map[[2]string]aRun{}
	scenarios := map[string]bool{}
	for _, r := range runs {
		newest[[2]string{r.student, r.scenario}] = r // runs are in the order made: the last is the newest
		scenarios[r.scenario] = true
	}
	index := filepath.Join(dir, "index.html")
	var seen gridSeen
	probeWith(t, exe, "800,1000", index, gridScript, "</body>", &seen)
	if seen.ScrollWidth > seen.ClientWidth || len(seen.Wide) > 0 {
		t.Errorf("at 800 px the index is %d px wide in a %d px window: %q", seen.ScrollWidth, seen.ClientWidth, seen.Wide)
	}
	if seen.Sections != len(scenarios) || seen.Folded != seen.Sections {
		t.Errorf("%d scenario sections, %d folded; want %d, all folded", seen.Sections, seen.Folded, len(scenarios))
	}
	if seen.GridTop < 0 || seen.GridTop > seen.InnerHeight {
		t.Errorf("the grid starts at %.0f px, below the first screen (%.0f px)", seen.GridTop, seen.InnerHeight)
	}
	students := []string{"alice", "bob", "carol", "dave"}
	if want := len(students) * len(scenarios); len(seen.Cells) != want {
		t.Errorf("%d grid cells, want %d (%d students × %d scenarios)", len(seen.Cells), want, len(students), len(scenarios))
	}
	filled := 0
	for _, c := range seen.Cells {
		if c.Report == "" {
			if !strings.Contains(c.Text, "no run") {
				t.Errorf("an empty cell reads %q", c.Text)
			}
			continue
		}
		filled++
		r, ok := newest[[2]string{c.Student, c.Scenario}]
		if !ok || c.Report != r.report {
			t.Errorf("cell %s × %s shows %s, want the newest run %s", c.Student, c.Scenario, c.Report, r.report)
			continue
		}
		word := map[string]string{"0": "pass", "1": "fail"}[r.exit]
		if !strings.Contains(c.Text, r.checks) || !strings.Contains(c.Cls, word) || !strings.HasPrefix(c.Href, "html/") {
			t.Errorf("cell %s × %s: %q (class %q, link %q); its report's header says checks %s, exit %s",
				c.Student, c.Scenario, c.Text, c.Cls, c.Href, r.checks, r.exit)
		}
	}
	if filled != len(newest) {
		t.Errorf("%d cells show a run, want %d (one per student and scenario run)", filled, len(newest))
	}
	grade := newest[[2]string{"dave", "grade-session-16"}]
	if len(grade.failed) < 5 {
		t.Fatalf("the failing grade failed %d checks, want more than three to show the cut", len(grade.failed))
	}
	var verdict string
	for _, v := range seen.Verdicts {
		if strings.Contains(v, grade.failed[0]) {
			verdict = v
		}
	}
	want := fmt.Sprintf("%d checks failed: %s; … and %d more", len(grade.failed), strings.Join(grade.failed[:3], "; "), len(grade.failed)-3)
	if !strings.Contains(verdict, want) || strings.Contains(verdict, grade.failed[3]) {
		t.Errorf("the failing grade's verdict reads\n%s\nwant its first three failed checks and the count:\n%s", verdict, want)
	}
	twin := filepath.Join(dir, "html", strings.TrimSuffix(grade.report, ".txt")+".html")
	var p probe
	probeWith(t, exe, "800,900", twin, probeScript, "</body>", &p)
	if p.ScrollWidth > p.ClientWidth || len(p.Wide) > 0 {
		t.Errorf("at 800 px the report page is %d px wide: %q", p.ScrollWidth, p.Wide)
	}
	figs, _ := filepath.Glob(filepath.Join(dir, "alice", "*", "*.svg"))
	if len(figs) == 0 {
		t.Fatal("no figure written")
	}
	for _, w := range []string{"800", "1920"} {
		var svg svgSeen
		probeWith(t, exe, w+",900", figs[0], svgScript, "</svg>", &svg)
		if svg.ScrollWidth > svg.InnerWidth || svg.Width > float64(svg.InnerWidth) {
			t.Errorf("%s opened alone at %s px: drawn %.0f px, scrolls %d px", filepath.Base(figs[0]), w, svg.Width, svg.ScrollWidth)
		}
		if w == "1920" && svg.Width != svg.Natural {
			t.Errorf("%s opened alone at 1920 px: drawn %.0f px, its own width is %.0f", filepath.Base(figs[0]), svg.Width, svg.Natural)
		}
	}
	if shots := os.Getenv("OUTBOXLAB_SCREENSHOTS"); shots != "" {
		for _, w := range []string{"800", "1366", "1920"} {
			for name, page := range map[string]string{"grid-index-": index, "grid-report-": twin} {
				chromiumAt(t, exe, w+",1400", "--screenshot="+filepath.Join(shots, name+w+".png"), "file://"+page)
			}
		}
	}
}

// svgScript records how wide an SVG opened alone is drawn, against the
// window and its own width attribute.
const svgScript = `<script>
window.addEventListener('load', function () {
  var de = document.documentElement, d = document.createElementNS('http://www.w3.org/2000/svg', 'desc');
  d.id = 'probe';
  d.textContent = JSON.stringify({width: de.getBoundingClientRect().width, natural: +de.getAttribute('width'),
    innerWidth: window.innerWidth, scrollWidth: document.scrollingElement.scrollWidth});
  de.appendChild(d);
});
</script>`

type svgSeen struct {
	Width       float64 `json:"width"`
	Natural     float64 `json:"natural"`
	InnerWidth  int     `json:"innerWidth"`
	ScrollWidth int     `json:"scrollWidth"`
}

// replayStepScript presses next twice, notes the step label, the URL's
// fragment and the event shown, then follows a link to #5 in the same page
// (a hashchange) and notes them again.
const replayStepScript = `<script>
window.addEventListener('load', function () {
  var where = document.getElementById('where'), out = {loaded: where.textContent, loadedN: +where.dataset.n};
  var note = function () { return {label: where.textContent, hash: location.hash, n: +where.dataset.n}; };
  document.getElementById('next').click();
  document.getElementById('next').click();
  out.twice = note();
  out.scrollWidth = document.documentElement.scrollWidth;
  out.clientWidth = document.documentElement.clientWidth;
  location.hash = '#5';
  setTimeout(function () {
    out.linked = note();
    var p = document.createElement('pre');
    p.id = 'probe';
    p.textContent = JSON.stringify(out);
    document.body.appendChild(p);
  }, 50);
});
</script>`

type replayStep struct {
	Label string `json:"label"`
	Hash  string `json:"hash"`
	N     int    `json:"n"`
}

type replaySeen struct {
	Loaded      string     `json:"loaded"`
	LoadedN     int        `json:"loadedN"`
	Twice       replayStep `json:"twice"`
	Linked      replayStep `json:"linked"`
	ScrollWidth int        `json:"scrollWidth"`
	ClientWidth int        `json:"clientWidth"`
}

// TestReplayNumbersItsSteps opens Day 16 AFTER's replay.html in Chromium at
// 800 px: it opens on step 1 of N (N: the change log's events and the
// seeded tables); pressing next twice shows step 3 and the URL becomes #3,
// showing the second event on the scenario clock (read from the change
// log); a link to #5 in the same page opens step 5; and the page loaded
// anew from the URL #3 opens step 3, the same event. Nothing is wider than
// the window.
func TestReplayNumbersItsSteps(t *testing.T) {
	exe := chromiumOrSkip(t)
	dir := t.TempDir()
	if code, _, stderr := runLab(t, "retry-with-dead-letter", "--report-dir", dir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*", "*-replay.html"))
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "*-changelog.json"))
	if len(pages) != 1 || len(logs) != 1 {
		t.Fatalf("replay pages %v, change logs %v: want one of each", pages, logs)
	}
	raw, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Designs []struct{ Name string } `json:"designs"`
		Steps   []struct {
			N      int    `json:"n"`
			Design string `json:"design"`
			At     string `json:"at"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(raw, &log); err != nil || len(log.Steps) < 5 {
		t.Fatalf("change log: %v, %d events; want at least 5", err, len(log.Steps))
	}
	// The scenario clock's order: by time, then the design's place in the log, then its number.
	rank := map[string]int{}
	for i, d := range log.Designs {
		rank[d.Name] = i
	}
	order := slices.Clone(log.Steps)
	slices.SortStableFunc(order, func(a, b struct {
		N      int    `json:"n"`
		Design string `json:"design"`
		At     string `json:"at"`
	}) int {
		return cmp.Or(strings.Compare(a.At, b.At), rank[a.Design]-rank[b.Design], a.N-b.N)
	})
	steps := len(log.Steps) + 1
	var seen replaySeen
	probeWith(t, exe, "800,900", pages[0], replayStepScript, "</body>", &seen)
	if !strings.HasPrefix(seen.Loaded, fmt.Sprintf("step 1 of %d ", steps)) || seen.LoadedN != 0 {
		t.Errorf("opened on %q (event %d), want step 1 of %d, the seeded tables", seen.Loaded, seen.LoadedN, steps)
	}
	if !strings.HasPrefix(seen.Twice.Label, fmt.Sprintf("step 3 of %d ", steps)) || seen.Twice.Hash != "#3" || seen.Twice.N != order[1].N {
		t.Errorf("after next twice: %q, URL %q, event %d; want step 3 of %d, #3, event %d", seen.Twice.Label, seen.Twice.Hash,
			seen.Twice.N, steps, order[1].N)
	}
	if !strings.HasPrefix(seen.Linked.Label, fmt.Sprintf("step 5 of %d ", steps)) || seen.Linked.N != order[3].N {
		t.Errorf("after a link to #5: %q, event %d; want step 5, event %d", seen.Linked.Label, seen.Linked.N, order[3].N)
	}
	if seen.ScrollWidth > seen.ClientWidth {
		t.Errorf("at 800 px the replay page is %d px wide", seen.ScrollWidth)
	}
	// Loaded anew from the copied URL: the step it names.
	var again replaySeen
	probeAt(t, exe, "800,900", pages[0], "#3", replayLoadScript, "</body>", &again)
	if again.Loaded != seen.Twice.Label || again.LoadedN != order[1].N {
		t.Errorf("loaded from #3: %q, event %d; want %q, event %d", again.Loaded, again.LoadedN, seen.Twice.Label, order[1].N)
	}
}

// replayLoadScript notes the step the page opens on.
const replayLoadScript = `<script>
window.addEventListener('load', function () {
  var where = document.getElementById('where'), p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = JSON.stringify({loaded: where.textContent, loadedN: +where.dataset.n});
  document.body.appendChild(p);
});
</script>`
