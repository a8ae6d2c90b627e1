package cli

import (
	"encoding/json"
	"html"
	"image/png"
	"os"
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stepScript steps the replay page as a person would: it ticks "all
// columns", presses → until the page shows event K (← once and → again on
// the way, to prove both keys), and records the tables of the pane that
// event belongs to, as the page shows them.
const stepScript = `<script>
window.addEventListener('load', function () {
  var K = %K%, where = document.getElementById('where'), guard = 0;
  var key = function (k) { document.dispatchEvent(new KeyboardEvent('keydown', {key: k})); };
  document.getElementById('allcols').click();
  while (+where.dataset.n !== K && guard++ < 100000) {
    key('ArrowRight');
    if (guard === 2) { key('ArrowLeft'); key('ArrowRight'); }
  }
  var pane = document.querySelector('.pane.current');
  var out = {n: +where.dataset.n, design: pane ? pane.dataset.design : '', tables: {},
    scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth};
  if (pane) pane.querySelectorAll('table.rows').forEach(function (t) {
    var cells = function (tr, sel) { return Array.prototype.map.call(tr.querySelectorAll(sel), function (c) { return c.textContent; }); };
    out.tables[t.dataset.table] = {columns: cells(t, 'thead th'),
      rows: Array.prototype.map.call(t.querySelectorAll('tbody tr:not(.removed)'), function (tr) { return cells(tr, 'td'); })};
  });
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
});
</script>`

type shownTable struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

type stepped struct {
	N           int                   `json:"n"`
	Design      string                `json:"design"`
	Tables      map[string]shownTable `json:"tables"`
	ScrollWidth int                   `json:"scrollWidth"`
	ClientWidth int                   `json:"clientWidth"`
}

// stepTo opens page in the browser at size, steps it to event k and returns
// what it shows.
func stepTo(t *testing.T, exe, size, page string, k int) stepped {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probed := filepath.Join(filepath.Dir(page), "probe-"+filepath.Base(page))
	script := strings.Replace(stepScript, "%K%", strconv.Itoa(k), 1)
	if err := os.WriteFile(probed, []byte(strings.Replace(string(raw), "</body>", script+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probed)
	dom := chromiumAt(t, exe, size, "--virtual-time-budget=10000", "--dump-dom", "file://"+probed)
	m := probeOut.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the step script did not run in %s", filepath.Base(page))
	}
	var s stepped
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	inspectTitle = regexp.MustCompile(`^## ([A-Za-z0-9_]+) \((\d+) rows?\)$`)
	stoppedDB    = regexp.MustCompile(`(?m)^database: (\S+)$`)
)

// stoppedTables runs scenario with --stop-after k --keep-db and returns
// every table inspect reads from the database of design (the scenario's
// own is outbox.db, its partner's partner.db), by lower-case name.
func stoppedTables(t *testing.T, scenario string, k int, own bool) map[string]shownTable {
	t.Helper()
	code, out, stderr := runLab(t, scenario, "--stop-after", strconv.Itoa(k), "--keep-db", "--no-report")
	m := stoppedDB.FindStringSubmatch(out)
	if code != cmdutil.ExitOK || m == nil || !strings.Contains(out, "stopped after event "+strconv.Itoa(k)+" ") {
		t.Fatalf("%s --stop-after %d: exit %d, stdout %q, stderr %q", scenario, k, code, out, stderr)
	}
	defer os.RemoveAll(filepath.Dir(m[1]))
	db := m[1]
	if !own {
		db = filepath.Join(filepath.Dir(db), "partner.db")
	}
	code, out, stderr = runLab(t, "inspect", "--db", db, "--limit", "0", "--wide")
	if code != cmdutil.ExitOK {
		t.Fatalf("inspect %s: exit %d: %s", db, code, stderr)
	}
	tables := map[string]*shownTable{}
	var cur *shownTable
	for _, line := range strings.Split(out, "\n") {
		if m := inspectTitle.FindStringSubmatch(line); m != nil {
			if strings.EqualFold(m[1], "LabInfo") || m[2] == "0" {
				cur = nil
				continue
			}
			cur = &shownTable{}
			tables[m[1]] = cur // as SQLite keeps the name: the page spells it so
			continue
		}
		if strings.HasPrefix(line, "## ") {
			cur = nil // a listing of another kind (dead letters): not a table
			continue
		}
		if cur == nil || !strings.HasPrefix(line, "│") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "│"), "│")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cur.Columns == nil {
			cur.Columns = cells
			continue
		}
		cur.Rows = append(cur.Rows, cells)
	}
	shown := map[string]shownTable{}
	for name, tb := range tables {
		shown[name] = *tb
	}
	return shown
}

// TestReplayInABrowser opens a run's replay.html in headless Chromium,
// steps to event K with the arrow keys, and requires the rows it shows to
// be the rows inspect reads from the same run's database stopped after
// event K (--stop-after K --keep-db): Day 16 AFTER, whose own design runs
// first (K ≤ 5) and its partner after it, and an ordered pair. It also
// keeps screenshots at 1920×1080 and 1366×768 (OUTBOXLAB_SCREENSHOTS=DIR).
func TestReplayInABrowser(t *testing.T) {
	exe := chromiumOrSkip(t)
	for _, c := range []struct {
		scenario string
		ks       []int
	}{
		{"session-16-retry-with-dead-letter", []int{1, 3, 5, 6, 11}},
		{"ordered-remember-poisoned-ids", []int{1, 9, 30, 40, 60}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			dir := t.TempDir()
			if code, _, stderr := runLab(t, c.scenario, "--report-dir", dir); code != cmdutil.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			pages, _ := filepath.Glob(filepath.Join(dir, "*", "*-replay.html"))
			if len(pages) != 1 {
				t.Fatalf("replay pages written: %v, want one beside the report", pages)
			}
			page := pages[0]
			raw, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			if c.scenario == "session-16-retry-with-dead-letter" && len(raw) >= 300_000 {
				t.Errorf("Day 16 AFTER's replay.html is %d bytes, want under 300 kB", len(raw))
			}
			for _, fetch := range []string{"<link", " src=", "http://", "https://", "@import", "fetch("} {
				if strings.Contains(string(raw), fetch) {
					t.Errorf("replay.html has %q: it must fetch nothing", fetch)
				}
			}
			own := ""
			for _, k := range c.ks {
				shown := stepTo(t, exe, "1366,768", page, k)
				if shown.N != k || shown.Design == "" {
					t.Fatalf("stepped to event %d (design %q), want event %d", shown.N, shown.Design, k)
				}
				if own == "" {
					own = shown.Design // event 1 is the scenario's own design's
				}
				truth := stoppedTables(t, c.scenario, k, shown.Design == own)
				for name, want := range truth {
					got, ok := shown.Tables[name]
					if !ok {
						t.Errorf("event %d, %s: the page shows no %s; inspect reads %d rows", k, shown.Design, name, len(want.Rows))
						continue
					}
					if !slices.Equal(got.Columns, want.Columns) {
						t.Errorf("event %d, %s.%s: columns %v, inspect %v", k, shown.Design, name, got.Columns, want.Columns)
					}
					if !slices.EqualFunc(got.Rows, want.Rows, slices.Equal) {
						t.Errorf("event %d, %s.%s: the page shows\n%v\ninspect reads\n%v", k, shown.Design, name, got.Rows, want.Rows)
					}
				}
				for name, got := range shown.Tables {
					if _, ok := truth[name]; !ok && len(got.Rows) > 0 {
						t.Errorf("event %d, %s: the page shows %d rows of %s; inspect reads none", k, shown.Design, len(got.Rows), name)
					}
				}
				if shown.ScrollWidth > shown.ClientWidth {
					t.Errorf("event %d at 1366×768: the page is %d px wide in a %d px window", k, shown.ScrollWidth, shown.ClientWidth)
				}
			}
			shots := os.Getenv("OUTBOXLAB_SCREENSHOTS")
			if shots == "" {
				shots = t.TempDir()
			}
			for _, size := range [][2]int{{1920, 1080}, {1366, 768}} {
				w, h := strconv.Itoa(size[0]), strconv.Itoa(size[1])
				shot := filepath.Join(shots, "replay-"+c.scenario+"-"+w+"x"+h+".png")
				chromiumAt(t, exe, w+","+h, "--screenshot="+shot, "file://"+page+"#"+strconv.Itoa(c.ks[1]))
				f, err := os.Open(shot)
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] || colors(img) < 8 {
					t.Errorf("%s: %v with %d colours; want a %s×%s page, not a blank", shot, b, colors(img), w, h)
				}
			}
		})
	}
}
