package cli

import (
	"context"
	"encoding/json"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// chromiumOrSkip finds a headless browser: without one the test skips in
// one line, except under CI=true, where a missing browser is a failure.
func chromiumOrSkip(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH, and CI=true: install it (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH: the browser test is skipped")
	return ""
}

func chromium(t *testing.T, exe string, args ...string) string {
	t.Helper()
	return chromiumAt(t, exe, "1280,800", args...)
}

// chromiumAt runs the headless browser with a window of size ("W,H").
func chromiumAt(t *testing.T, exe, size string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=" + size, "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, exe, append(base, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return string(out)
}

// probeScript records, once the page and its images have loaded, what a
// person would see go wrong: broken images, anything wider than the window,
// a figure drawn smaller than the SVG's own size (its 12 px text shrinks),
// a flag broken across lines, and where the summary, the verdict and the
// timeline are.
const probeScript = `<script>
window.addEventListener('load', function () {
  var all = function (sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); };
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !i.complete || i.naturalWidth === 0; })
    .map(function (i) { return i.getAttribute('src'); });
  var wide = all('body *').filter(function (e) {
    return e.getBoundingClientRect().right > window.innerWidth + 1;
  }).map(function (e) { return e.tagName + ': ' + (e.textContent || '').slice(0, 60); });
  var top = function (sel) { var e = document.querySelector(sel); return e ? e.getBoundingClientRect().top : -1; };
  var h2s = all('h2').filter(function (h) { return /^Timeline/.test(h.textContent); });
  var de = document.documentElement;
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = JSON.stringify({images: imgs.length, broken: broken, wide: wide.slice(0, 5),
    rows: document.querySelectorAll('tr.run').length, scrollWidth: de.scrollWidth, clientWidth: de.clientWidth,
    figures: imgs.map(function (i) { return {src: i.getAttribute('src'), alt: i.alt,
      width: i.getBoundingClientRect().width, natural: i.naturalWidth}; }),
    bodyWidth: document.body.clientWidth,
    brokenFlags: all('code.flag span, code.shown').filter(function (c) { return c.getClientRects().length > 1; })
      .map(function (c) { return c.textContent; }),
    summaryTop: top('#summary'), firstRunsTop: top('table.runs'), verdictTop: top('#result .verdict'),
    timelineTop: h2s.length ? h2s[0].getBoundingClientRect().top : -1, innerHeight: window.innerHeight});
  document.body.appendChild(p);
});
</script>`

type probe struct {
	Images      int      `json:"images"`
	Broken      []string `json:"broken"`
	Wide        []string `json:"wide"`
	Rows        int      `json:"rows"`
	ScrollWidth int      `json:"scrollWidth"`
	ClientWidth int      `json:"clientWidth"`
	Figures     []struct {
		Src     string  `json:"src"`
		Alt     string  `json:"alt"`
		Width   float64 `json:"width"`
		Natural float64 `json:"natural"`
	} `json:"figures"`
	BodyWidth    float64  `json:"bodyWidth"`
	BrokenFlags  []string `json:"brokenFlags"`
	SummaryTop   float64  `json:"summaryTop"`
	FirstRunsTop float64  `json:"firstRunsTop"`
	VerdictTop   float64  `json:"verdictTop"`
	TimelineTop  float64  `json:"timelineTop"`
	InnerHeight  float64  `json:"innerHeight"`
}

var probeOut = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)

// look loads page (a copy of it beside it, with the probe script) in the
// browser at 1280×800 and returns what the probe saw.
func look(t *testing.T, exe, page string) probe {
	t.Helper()
	return lookAt(t, exe, "1280,800", page)
}

// lookAt is look with a window of size ("W,H").
func lookAt(t *testing.T, exe, size, page string) probe {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probed := filepath.Join(filepath.Dir(page), "probe-"+filepath.Base(page))
	if err := os.WriteFile(probed, []byte(strings.Replace(string(raw), "</body>", probeScript+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probed)
	dom := chromiumAt(t, exe, size, "--virtual-time-budget=10000", "--dump-dom", "file://"+probed)
	m := probeOut.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe did not run in %s", filepath.Base(page))
	}
	var p probe
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIndexInABrowser renders the class index and one HTML report in
// headless Chromium at 1280×800 and checks what a person would see: every
// run's row, every figure loaded, nothing wider than the window; and that
// the screenshot is a page, not a blank.
// OUTBOXLAB_SCREENSHOTS=DIR keeps the screenshots there.
func TestIndexInABrowser(t *testing.T) {
	exe := chromiumOrSkip(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"retry-with-dead-letter"},
		{"retry-with-dead-letter", "--max-attempts", "5"},
		{"session-16-poison-message-retried-forever"},
		{"backoff-schedules"},
	} {
		if code, _, stderr := runLab(t, append(args, "--report-dir", dir)...); code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	entries, err := report.ScanReports(dir)
	if err != nil {
		t.Fatal(err)
	}
	figures := 0
	for _, e := range entries {
		figures += len(e.Figures)
	}
	index := filepath.Join(dir, report.IndexFile)
	p := look(t, exe, index)
	if p.Rows != len(entries) || p.Images != figures || len(p.Broken) > 0 {
		t.Errorf("index in the browser: %d rows, %d images, broken %v; want %d rows, %d images, none broken",
			p.Rows, p.Images, p.Broken, len(entries), figures)
	}
	if p.ScrollWidth > p.ClientWidth || len(p.Wide) > 0 {
		t.Errorf("index wider than the window: scrollWidth %d > clientWidth %d; %v", p.ScrollWidth, p.ClientWidth, p.Wide)
	}
	var twin string
	for _, e := range entries {
		if e.Scenario == "session-16-retry-with-dead-letter" && len(e.Flags) > 0 {
			twin = filepath.Join(dir, filepath.FromSlash(e.HTML))
		}
	}
	p = look(t, exe, twin)
	if p.Images != 1 || len(p.Broken) > 0 || p.ScrollWidth > p.ClientWidth || len(p.Wide) > 0 {
		t.Errorf("report page in the browser: %d images, broken %v, scrollWidth %d, clientWidth %d, wide %v",
			p.Images, p.Broken, p.ScrollWidth, p.ClientWidth, p.Wide)
	}

	shots := os.Getenv("OUTBOXLAB_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	for name, page := range map[string]string{"index.png": index, "report.png": twin} {
		shot := filepath.Join(shots, name)
		chromium(t, exe, "--screenshot="+shot, "file://"+page)
		f, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 800 || colors(img) < 8 {
			t.Errorf("%s: %v with %d colours; want a 1280×800 page, not a blank", name, b, colors(img))
		}
	}
}

func colors(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

var svgTitleRe = regexp.MustCompile(`<title>([^<]*)</title>`)

// TestClassIndexOnAProjector renders a class folder's index (per-student
// folders, one nested deeper, a renamed report, an edited header, notes)
// and a report page at a projector's 1920×1080 and a laptop's 1366×768,
// and checks what the room would see: the class summary first, every
// report's row, figures full width and no smaller than the SVG's own size
// (its 12 px text stays at least 12 px), each figure's alt text its SVG's
// title, no flag broken across lines, nothing wider than the window; and on
// the report page the verdict in the first screen, above the timeline.
// OUTBOXLAB_SCREENSHOTS=DIR keeps the four screenshots there.
func TestClassIndexOnAProjector(t *testing.T) {
	exe := chromiumOrSkip(t)
	dir := t.TempDir()
	for _, run := range []struct {
		folder string
		args   []string
	}{
		{"alice", []string{"retry-with-dead-letter", "--student", "alice"}},
		{"alice", []string{"session-16-poison-message-retried-forever"}},
		{"bob", []string{"retry-with-dead-letter", "--max-attempts", "5", "--base-backoff", "300ms", "--poison-key", "PAY-002,PAY-003,PAY-004"}},
		{"carol/week-6/day-16", []string{"retry-with-dead-letter", "--dead-letter=false"}},
		{"dave", []string{"backoff-schedules"}},
	} {
		code, _, stderr := runLab(t, append(run.args, "--report-dir", filepath.Join(dir, run.folder))...)
		if code != cmdutil.ExitOK && code != cmdutil.ExitChecksFailed {
			t.Fatalf("%v: exit %d: %s", run.args, code, stderr)
		}
	}
	// erin renamed hers; frank edited his header's exit line.
	files, _ := filepath.Glob(filepath.Join(dir, "carol", "week-6", "day-16", "session-16", "*.txt"))
	raw, _ := os.ReadFile(files[0])
	os.MkdirAll(filepath.Join(dir, "frank"), 0o755)
	os.WriteFile(filepath.Join(dir, "frank", "day16.txt"), []byte(strings.Replace(string(raw), "exit:     1", "exit:     0", 1)), 0o644)
	files, _ = filepath.Glob(filepath.Join(dir, "alice", "session-16", "Session-16-Retry*.txt"))
	raw, _ = os.ReadFile(files[0])
	os.MkdirAll(filepath.Join(dir, "erin"), 0o755)
	os.WriteFile(filepath.Join(dir, "erin", "my report.txt"), raw, 0o644)
	os.WriteFile(filepath.Join(dir, "erin", "notes.md"), []byte("notes"), 0o644)
	if code, out, stderr := runLab(t, "index", "--report-dir", dir); code != cmdutil.ExitOK || !strings.HasPrefix(out, "indexed 7 reports; skipped 1 file:\n") {
		t.Fatalf("index: exit %d, %q, %q", code, out, stderr)
	}
	sc, err := report.ScanDir(dir, cmdutil.Course())
	if err != nil {
		t.Fatal(err)
	}
	figures := 0
	var page string
	for _, e := range sc.Entries {
		figures += len(e.Figures)
		if e.Student == "bob" {
			page = filepath.Join(dir, filepath.FromSlash(e.HTML))
		}
	}
	index := filepath.Join(dir, report.IndexFile)
	shots := os.Getenv("OUTBOXLAB_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	for _, size := range []string{"1920,1080", "1366,768"} {
		p := lookAt(t, exe, size, index)
		if p.Rows != len(sc.Entries) || p.Images != figures || len(p.Broken) > 0 {
			t.Errorf("%s: %d rows, %d images, broken %v; want %d rows, %d images, none broken",
				size, p.Rows, p.Images, p.Broken, len(sc.Entries), figures)
		}
		if p.ScrollWidth > p.ClientWidth || len(p.Wide) > 0 {
			t.Errorf("%s: index wider than the window: %d > %d; %v", size, p.ScrollWidth, p.ClientWidth, p.Wide)
		}
		if p.SummaryTop < 0 || p.SummaryTop > p.FirstRunsTop {
			t.Errorf("%s: the class summary (top %.0f) is not above the first runs table (top %.0f)", size, p.SummaryTop, p.FirstRunsTop)
		}
		if len(p.BrokenFlags) > 0 {
			t.Errorf("%s: flags broken across lines: %q", size, p.BrokenFlags)
		}
		for _, f := range p.Figures {
			svg, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Src)))
			m := svgTitleRe.FindSubmatch(svg)
			if m == nil || f.Alt != html.UnescapeString(string(m[1])) {
				t.Errorf("%s: alt %q, want the SVG's title %q", f.Src, f.Alt, m)
			}
			if f.Width < 0.9*(p.BodyWidth-48) || f.Width < f.Natural {
				t.Errorf("%s at %s: drawn %.0f px wide (natural %.0f, page %.0f): not full width, or its text shrinks",
					f.Src, size, f.Width, f.Natural, p.BodyWidth)
			}
		}
		p = lookAt(t, exe, size, page)
		if p.VerdictTop < 0 || p.VerdictTop > p.InnerHeight || p.TimelineTop < p.VerdictTop {
			t.Errorf("%s: report page's verdict at %.0f (window %.0f high), timeline at %.0f: want the verdict first, on the first screen",
				size, p.VerdictTop, p.InnerHeight, p.TimelineTop)
		}
		if len(p.BrokenFlags) > 0 || p.ScrollWidth > p.ClientWidth {
			t.Errorf("%s: report page: flags broken %q, scrollWidth %d > %d", size, p.BrokenFlags, p.ScrollWidth, p.ClientWidth)
		}
		w := strings.Split(size, ",")[0]
		for name, pg := range map[string]string{"class-index-" + w + ".png": index, "report-" + w + ".png": page} {
			shot := filepath.Join(shots, name)
			chromiumAt(t, exe, size, "--screenshot="+shot, "file://"+pg)
			if fi, err := os.Stat(shot); err != nil || fi.Size() < 10000 {
				t.Errorf("%s: no screenshot, or a blank one: %v", name, err)
			}
		}
	}
}
