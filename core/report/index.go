package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The files a report directory's index is made of, beside the group folders.
const (
	IndexFile   = "index.html"
	SummaryFile = "summary.json"
	TwinDir     = "html" // HTML twins: html/<group>/<report name>.html
	lockFile    = ".index.lock"
)

// maxIndexedReport is the most of a report file the index reads.
const maxIndexedReport = 64 << 20

var suffixN = regexp.MustCompile(`^\d+-`)

var reportFile = regexp.MustCompile(`^([A-Za-z0-9-]+)-RunReport-(\d{8}-\d{6})(-\d+)?\.txt$`)

// Entry is one report found in a report directory, as its header records it.
// Paths are relative to the report directory, with forward slashes.
type Entry struct {
	Scenario     string    `json:"scenario"`
	Kind         Kind      `json:"kind,omitempty"`
	Started      time.Time `json:"started"`
	ParamsKnown  bool      `json:"params_known"`
	Flags        []string  `json:"flags"` // the parameters that differ from the defaults
	ChecksPassed int       `json:"checks_passed"`
	ChecksTotal  int       `json:"checks_total"`
	Verdict      string    `json:"verdict"`
	ExitCode     int       `json:"exit_code"`
	Report       string    `json:"report"`
	HTML         string    `json:"html"`
	Figures      []string  `json:"figures"`
}

// ScanReports reads every report in dir's group folders, newest first. A
// report written before headers carried a record still gets an entry, from
// its file name and body (kind and flags unknown). Files that are not
// reports, symbolic links and unreadable files are skipped.
func ScanReports(dir string) ([]Entry, error) {
	groups, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read report directory: %w", unwrapPath(err))
	}
	var entries []Entry
	for _, g := range groups {
		if !g.IsDir() || g.Name() == TwinDir || strings.HasPrefix(g.Name(), ".") {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, g.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			if !f.Type().IsRegular() || !reportFile.MatchString(f.Name()) {
				continue
			}
			if e, ok := readEntry(dir, g.Name(), f.Name()); ok {
				entries = append(entries, e)
			}
		}
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		return cmp.Or(b.Started.Compare(a.Started), strings.Compare(b.Report, a.Report))
	})
	return entries, nil
}

func readEntry(dir, group, name string) (Entry, bool) {
	text, err := readBounded(filepath.Join(dir, group, name))
	if err != nil {
		return Entry{}, false
	}
	doc, ok := Parse(text)
	if !ok || !doc.HasHeader {
		return Entry{}, false
	}
	m := reportFile.FindStringSubmatch(name)
	rel := group + "/" + name
	base := strings.TrimSuffix(name, ".txt")
	e := Entry{Report: rel, HTML: TwinDir + "/" + group + "/" + base + ".html", Started: doc.Info.Started, Flags: []string{}}
	if e.Started.IsZero() {
		e.Started, _ = time.Parse("20060102-150405", m[2])
	}
	figs, _ := filepath.Glob(filepath.Join(dir, group, globEscape(base)+"-*.svg"))
	for _, f := range figs {
		// Report X-2.txt's figures are X-2-*.svg: not X.txt's.
		rest := strings.TrimPrefix(filepath.Base(f), base+"-")
		if n := suffixN.FindString(rest); n != "" {
			if _, err := os.Lstat(filepath.Join(dir, group, base+"-"+strings.TrimSuffix(n, "-")+".txt")); err == nil {
				continue
			}
		}
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			e.Figures = append(e.Figures, group+"/"+filepath.Base(f))
		}
	}
	if r := doc.Info.Record; r != nil {
		e.Scenario, e.Kind, e.ParamsKnown = r.Scenario, r.Kind, true
		for _, p := range NonDefault(r.Params) {
			e.Flags = append(e.Flags, p.String())
		}
		e.ChecksPassed, e.ChecksTotal = ChecksPassed(r.Checks), len(r.Checks)
		e.Verdict, e.ExitCode = r.Verdict, r.ExitCode
		return e, true
	}
	// An older report: what its name and body say.
	e.Scenario = strings.ToLower(m[1])
	checks := BodyChecks(doc.Body)
	e.ChecksPassed, e.ChecksTotal = ChecksPassed(checks), len(checks)
	e.Verdict = BodyVerdict(doc.Body)
	if e.ChecksTotal == 0 || e.ChecksPassed < e.ChecksTotal {
		e.ExitCode = 1
	}
	return e, true
}

func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// readBounded reads a regular file of at most maxIndexedReport bytes.
func readBounded(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIndexedReport+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxIndexedReport {
		return "", fmt.Errorf("%s is too large", p)
	}
	return string(b), nil
}

// Summary is summary.json: the newest report of each scenario in the
// directory (after `all`, the runs it just made).
type Summary struct {
	Generated time.Time `json:"generated"`
	Version   string    `json:"version"`
	Reports   int       `json:"reports"`
	Passed    bool      `json:"passed"` // every scenario's newest run passed its checks
	Failed    []string  `json:"failed"`
	Scenarios []Entry   `json:"scenarios"`
}

func summarize(entries []Entry, now time.Time, version string) Summary {
	s := Summary{Generated: now.UTC(), Version: version, Reports: len(entries), Failed: []string{}, Scenarios: []Entry{}}
	seen := map[string]bool{}
	for _, e := range entries { // newest first: the first of each scenario is its newest
		if !seen[e.Scenario] {
			seen[e.Scenario] = true
			s.Scenarios = append(s.Scenarios, e)
		}
	}
	slices.SortFunc(s.Scenarios, func(a, b Entry) int { return strings.Compare(a.Scenario, b.Scenario) })
	for _, e := range s.Scenarios {
		if e.ExitCode != 0 {
			s.Failed = append(s.Failed, e.Scenario)
		}
	}
	s.Passed = len(s.Scenarios) > 0 && len(s.Failed) == 0
	return s
}

// RebuildIndex rebuilds dir's index.html and summary.json from the reports
// on disk, writing the HTML twin of any report that has none. It holds an
// exclusive lock on dir/.index.lock throughout, so runs finishing at once
// rebuild one after the other, each from every report then on disk, and it
// replaces each file atomically (temporary file, then rename): a reader
// sees the old index or the new one, never half of one.
func RebuildIndex(dir string, now time.Time, version string) (entries []Entry, err error) {
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return rebuildLocked(dir, now, version)
}

// WriteTwinAndIndex writes the HTML twin of the report at reportPath (in
// dir's group folders), replacing any, and then rebuilds the index, under
// the same lock as RebuildIndex.
func WriteTwinAndIndex(dir, reportPath string, now time.Time, version string) error {
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	group, name := filepath.Base(filepath.Dir(reportPath)), filepath.Base(reportPath)
	e, ok := readEntry(dir, group, name)
	if !ok {
		return fmt.Errorf("read report %s back", reportPath)
	}
	if err := writeTwin(dir, e); err != nil {
		return err
	}
	_, err = rebuildLocked(dir, now, version)
	return err
}

func rebuildLocked(dir string, now time.Time, version string) ([]Entry, error) {
	entries, err := ScanReports(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(e.HTML))); os.IsNotExist(err) {
			if err := writeTwin(dir, e); err != nil {
				return nil, err
			}
		}
	}
	if err := replaceFile(dir, IndexFile, []byte(IndexHTML(entries, dir, now, version))); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(summarize(entries, now, version), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	return entries, replaceFile(dir, SummaryFile, append(js, '\n'))
}

func writeTwin(dir string, e Entry) error {
	text, err := readBounded(filepath.Join(dir, filepath.FromSlash(e.Report)))
	if err != nil {
		return fmt.Errorf("write HTML twin: %w", unwrapPath(err))
	}
	doc, _ := Parse(text)
	twin := filepath.Join(dir, filepath.FromSlash(e.HTML))
	if err := os.MkdirAll(filepath.Dir(twin), 0o755); err != nil {
		return fmt.Errorf("write HTML twin: %w", unwrapPath(err))
	}
	up := strings.Repeat("../", strings.Count(e.HTML, "/"))
	titles := make([]string, len(e.Figures))
	for i, f := range e.Figures {
		titles[i] = figureTitle(filepath.Join(dir, filepath.FromSlash(f)))
	}
	return replaceFile(filepath.Dir(twin), filepath.Base(twin), []byte(ReportHTML(e, doc.Body, up, titles)))
}

var svgText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// figureTitle is an SVG figure's first text, its title, which the body
// prints above the figure's text drawing; "" when there is none.
func figureTitle(svg string) string {
	text, err := readBounded(svg)
	if err != nil {
		return ""
	}
	m := svgText.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(html.UnescapeString(m[1]))
}

// replaceFile writes dir/name atomically: a temporary file renamed over it.
func replaceFile(dir, name string, content []byte) error {
	tmp, err := os.CreateTemp(dir, "."+name+"-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, unwrapPath(err))
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(content)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path.Join(filepath.Base(dir), name), unwrapPath(err))
	}
	return nil
}
