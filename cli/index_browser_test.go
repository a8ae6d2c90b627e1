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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,800", "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, exe, append(base, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return string(out)
}

// probeScript records, once the page and its images have loaded, what a
// person would see go wrong: broken images and anything wider than the window.
const probeScript = `<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !i.complete || i.naturalWidth === 0; })
    .map(function (i) { return i.getAttribute('src'); });
  var wide = Array.prototype.slice.call(document.querySelectorAll('body *')).filter(function (e) {
    return e.getBoundingClientRect().right > window.innerWidth + 1;
  }).map(function (e) { return e.tagName + ': ' + (e.textContent || '').slice(0, 60); });
  var de = document.documentElement;
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = JSON.stringify({images: imgs.length, broken: broken, wide: wide.slice(0, 5),
    rows: document.querySelectorAll('tr.run').length, scrollWidth: de.scrollWidth, clientWidth: de.clientWidth});
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
}

var probeOut = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)

// look loads page (a copy of it beside it, with the probe script) in the
// browser at 1280×800 and returns what the probe saw.
func look(t *testing.T, exe, page string) probe {
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
	dom := chromium(t, exe, "--virtual-time-budget=10000", "--dump-dom", "file://"+probed)
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
		if code, _, stderr := runLab(t, append(args, "--report-dir", dir)...); code != ExitOK {
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
