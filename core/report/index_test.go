package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"outboxlab/core/plot"
)

func demoReport(verdict string, params []Param) string {
	body := "Demo run\n========\n\n## Safety checks\n\n  PASS  drained → 0 left\n\n## Verdict\n\nVERDICT: " + verdict + "\n"
	r := &Record{Scenario: "session-16-demo", Kind: After, Version: "0.1.0", Params: params,
		Checks: []Check{{Name: "drained", Passed: true, Detail: "0 left"}}, Verdict: verdict, Passed: true}
	return Header(Meta{Started: time.Now(), Command: "x", Database: "db", Version: "0.1.0", Record: r}) + body
}

// wellFormed parses page as XML (the pages are XHTML-compatible) and returns
// the values of attr on every element named name.
func wellFormed(t *testing.T, page string, name, attr string) []string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	var vals []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return vals
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == name {
			for _, a := range se.Attr {
				if a.Name.Local == attr {
					vals = append(vals, a.Value)
				}
			}
		}
	}
}

// Runs finishing at once each rebuild the index under the lock: the last
// index holds every report, none is lost, and no temporary file is left.
func TestRebuildIndexUnderConcurrentRunsLosesNoRow(t *testing.T) {
	dir := t.TempDir()
	group, _ := PrepareDir(dir, "session-16")
	// A report from before headers carried a record still gets its row.
	old := HeaderStart + "\nstarted:  2025-01-01T00:00:00Z\ncommand:  x\n" + HeaderEnd +
		"\nOld run\n=======\n\n## Safety checks\n\n  FAIL  drained → 1 left\n\n## Verdict\n\nVERDICT: OLD\n"
	if err := os.WriteFile(filepath.Join(group, "Session-16-Demo-RunReport-20250101-000000.txt"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	const runs = 12
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			params := []Param{{Name: "max-attempts", Value: fmt.Sprint(i), Default: "3", Set: true}}
			p, _, err := WriteAll(group, "session-16-demo", time.Now(), []byte(demoReport(fmt.Sprintf("V%d", i), params)),
				[]plot.Figure{{Name: "attempts", SVG: `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`}})
			if err == nil {
				err = WriteTwinAndIndex(dir, p, time.Now(), "0.1.0", Course{})
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	page, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	rows := strings.Count(string(page), `<tr class="run">`)
	if rows != runs+1 {
		t.Errorf("index has %d rows, want %d", rows, runs+1)
	}
	for i := range runs {
		if !strings.Contains(string(page), fmt.Sprintf("--max-attempts=%d", i)) && i != 3 {
			t.Errorf("index lacks the run with --max-attempts=%d", i)
		}
	}
	if !strings.Contains(string(page), "unknown (older report)") || !strings.Contains(string(page), ">OLD<") {
		t.Error("index lacks the older report's row")
	}
	imgs := wellFormed(t, string(page), "img", "src")
	if len(imgs) != runs {
		t.Errorf("index shows %d figures, want %d", len(imgs), runs)
	}
	for _, src := range append(imgs, wellFormed(t, string(page), "a", "href")...) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(src))); err != nil && !strings.HasPrefix(src, "#") {
			t.Errorf("index links to %s, which is missing", src)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	var sum Summary
	raw, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err := json.Unmarshal(raw, &sum); err != nil || sum.Reports != runs+1 || len(sum.Scenarios) != 1 {
		t.Errorf("summary.json = %+v, %v; want %d reports of one scenario", sum, err, runs+1)
	}
	twins, _ := filepath.Glob(filepath.Join(dir, TwinDir, "session-16", "*.html"))
	if len(twins) != runs+1 {
		t.Errorf("%d HTML twins, want %d", len(twins), runs+1)
	}
	for _, tw := range twins {
		page, _ := os.ReadFile(tw)
		for _, src := range wellFormed(t, string(page), "img", "src") {
			if _, err := os.Stat(filepath.Join(filepath.Dir(tw), filepath.FromSlash(src))); err != nil {
				t.Errorf("%s shows %s, which is missing", filepath.Base(tw), src)
			}
		}
	}
}
