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
	Student      string    `json:"student,omitempty"` // the first folder when it is not a group folder (see Course), else the header's --student
	ParamsKnown  bool      `json:"params_known"`
	Flags        []string  `json:"flags"` // the parameters that differ from the defaults
	Shown        []string  `json:"shown,omitempty"`
	ChecksPassed int       `json:"checks_passed"`
	ChecksTotal  int       `json:"checks_total"`
	// ChecksNotExercised counts the checks whose precondition did not occur
	// (N/A): neither passed nor failed, but the run has not passed.
	ChecksNotExercised int    `json:"checks_not_exercised"`
	Verdict            string `json:"verdict"`
	ExitCode           int    `json:"exit_code"`
	// Disagrees lists where the header disagrees with its own body (see
	// Disagreements): a report edited by hand. Its checks, verdict and exit
	// are then the body's, and the index marks the row.
	Disagrees []string `json:"header_disagrees,omitempty"`
	// NotRegraded marks a grade report that passed: its checks are the
	// student's word until class regrades the worker, so it never counts
	// as passed here.
	NotRegraded bool     `json:"not_regraded,omitempty"`
	Report      string   `json:"report"`
	HTML        string   `json:"html"`
	Figures     []string `json:"figures"`

	failed   []string  // the checks that did not hold (failedNames), for the verdict's short form
	folder   string    // the first folder of Report below the directory, "" at the top
	replay   string    // the replay page beside Report (replayOf), "" when there is none
	modified time.Time // the file's modification time: orders runs started in the same second
}

// Course is what the index knows of the lab's catalogue: the scenarios in
// course order (each BEFORE followed by its AFTER), each one's pair, and the
// folders the lab writes reports to (session-16, retry, ...): a report's
// first folder that is none of them is a student's.
type Course struct {
	Order  []string
	Pair   map[string]string
	Groups map[string]bool
}

// Scan is what a report directory holds: its reports, newest first, and
// the files that are not reports, each with why.
type Scan struct {
	Entries []Entry
	Skipped []Skip
}

// ScanReports reads every report below dir at any depth, newest first (see
// ScanDir).
func ScanReports(dir string) ([]Entry, error) {
	s, err := ScanDir(dir, Course{})
	return s.Entries, err
}

// ScanDir reads every report below dir at any depth (FindReports), newest
// first: by the start its header records, then, within a second, a -N
// suffix after the name it extends, then the file's modification time. A
// report written before headers carried a record still gets an entry, from
// its body (kind and flags unknown).
func ScanDir(dir string, course Course) (Scan, error) {
	found, skipped, err := FindReports(dir)
	if err != nil {
		return Scan{}, err
	}
	var entries []Entry
	for _, rel := range found {
		e, why := readEntry(dir, rel, course)
		if why != "" {
			skipped = append(skipped, Skip{rel, why})
			continue
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, newestFirst)
	return Scan{Entries: entries, Skipped: skipped}, nil
}

// newestFirst orders entries newest first. Headers record the start to the
// second; runs in the same second are told apart by their -N suffix (the
// lab's, for the same name) or, failing that, by when the file was written.
func newestFirst(a, b Entry) int {
	if c := b.Started.Compare(a.Started); c != 0 {
		return c
	}
	ba, na := splitSuffix(a.Report)
	bb, nb := splitSuffix(b.Report)
	if ba == bb && na != nb {
		return cmp.Compare(nb, na)
	}
	return cmp.Or(b.modified.Compare(a.modified), strings.Compare(b.Report, a.Report))
}

// splitSuffix cuts a report's X-2.txt into X.txt and 2; X.txt is X.txt and
// 1, as is a file not named as the lab names reports.
func splitSuffix(rel string) (string, int) {
	m := reportFile.FindStringSubmatch(path.Base(rel))
	if m == nil || m[3] == "" {
		return rel, 1
	}
	var n int
	fmt.Sscan(strings.TrimPrefix(m[3], "-"), &n)
	return strings.TrimSuffix(rel, m[3]+".txt") + ".txt", n
}

// readEntry reads the report at dir/rel; why says why it is not indexed.
func readEntry(dir, rel string, course Course) (Entry, string) {
	file := filepath.Join(dir, filepath.FromSlash(rel))
	text, err := readBounded(file)
	if err != nil {
		return Entry{}, "cannot be read: " + unwrapPath(err).Error()
	}
	doc, ok := Parse(text)
	if !ok || !doc.HasHeader {
		return Entry{}, "not an outboxlab report"
	}
	name := path.Base(rel)
	base := strings.TrimSuffix(rel, path.Ext(rel))
	e := Entry{Report: rel, HTML: TwinDir + "/" + base + ".html", Started: doc.Info.Started, Flags: []string{}}
	if fi, err := os.Stat(file); err == nil {
		e.modified = fi.ModTime()
	}
	if i := strings.Index(rel, "/"); i > 0 {
		e.folder = rel[:i]
	}
	m := reportFile.FindStringSubmatch(name)
	if e.Started.IsZero() && m != nil {
		e.Started, _ = time.Parse("20060102-150405", m[2])
	}
	e.Figures, e.replay = figuresOf(dir, rel), replayOf(dir, rel)
	if r := doc.Info.Record; r != nil {
		e.Scenario, e.Kind, e.ParamsKnown, e.Shown = r.Scenario, r.Kind, true, r.Shown
		for _, p := range NonDefault(r.Params) {
			e.Flags = append(e.Flags, p.String())
		}
		e.ChecksPassed, e.ChecksTotal = ChecksPassed(r.Checks), len(r.Checks)
		e.ChecksNotExercised = ChecksNotExercised(r.Checks)
		e.Verdict, e.ExitCode, e.Student = r.Verdict, r.ExitCode, r.Student
		e.failed = failedNames(r.Checks)
		if e.Disagrees = Disagreements(doc); len(e.Disagrees) > 0 {
			// The body is what the run printed; an edited header is not believed.
			fromBody(&e, doc.Body)
		}
	} else {
		// An older report: what its name and body say.
		if m != nil {
			e.Scenario = strings.ToLower(m[1])
		} else {
			e.Scenario = strings.ToLower(strings.TrimSuffix(name, path.Ext(name)))
		}
		fromBody(&e, doc.Body)
	}
	e.NotRegraded = e.ExitCode == 0 && GradeReport(doc.Info)
	// As class reads it: the student's folder, else the header's --student.
	if e.folder != "" && !course.Groups[e.folder] {
		e.Student = e.folder
	}
	return e, ""
}

// fromBody sets e's checks, verdict and exit code from what the body prints.
func fromBody(e *Entry, body string) {
	checks := BodyChecks(body)
	if len(checks) == 1 && "FAIL  "+checks[0].Name == NoChecks {
		checks = nil
	}
	e.ChecksPassed, e.ChecksTotal = ChecksPassed(checks), len(checks)
	e.ChecksNotExercised = ChecksNotExercised(checks)
	e.failed = failedNames(checks)
	e.Verdict = BodyVerdict(body)
	e.ExitCode = exitFor(e.ChecksTotal > 0 && e.ChecksPassed == e.ChecksTotal)
}

// figuresOf returns the SVG figures beside the report at dir/rel: named
// after it (X.txt's are X-*.svg), not after a sibling X-2.txt.
func figuresOf(dir, rel string) []string {
	folder, base := path.Dir(rel), strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	abs := filepath.Join(dir, filepath.FromSlash(folder))
	figs, _ := filepath.Glob(filepath.Join(abs, globEscape(base)+"-*.svg"))
	var out []string
	for _, f := range figs {
		// Report X-2.txt's figures are X-2-*.svg: not X.txt's.
		rest := strings.TrimPrefix(filepath.Base(f), base+"-")
		if n := suffixN.FindString(rest); n != "" {
			if _, err := os.Lstat(filepath.Join(abs, base+"-"+strings.TrimSuffix(n, "-")+path.Ext(rel))); err == nil {
				continue
			}
		}
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			out = append(out, path.Join(folder, filepath.Base(f)))
		}
	}
	return append(out, captionFigures(dir, rel)...)
}

func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// readBounded reads a regular file of at most maxIndexedReport bytes,
// normalised (Normalize: a byte-order mark, CRLF, a lost final newline).
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
	return Normalize(string(b)), nil
}

// RebuildIndex rebuilds dir's index.html and summary.json from the reports
// on disk, writing the HTML twin of any report that has none. It holds an
// exclusive lock on dir/.index.lock throughout, so runs finishing at once
// rebuild one after the other, each from every report then on disk, and it
// replaces each file atomically (temporary file, then rename): a reader
// sees the old index or the new one, never half of one.
func RebuildIndex(dir string, now time.Time, version string, course Course) (Scan, error) {
	unlock, err := lockDir(dir)
	if err != nil {
		return Scan{}, err
	}
	defer unlock()
	return rebuildLocked(dir, now, version, course)
}

// WriteTwinAndIndex writes the HTML twin of the report at reportPath (below
// dir), replacing any, and then rebuilds the index, under the same lock as
// RebuildIndex.
func WriteTwinAndIndex(dir, reportPath string, now time.Time, version string, course Course) error {
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	rel, err := filepath.Rel(dir, reportPath)
	if err != nil {
		return fmt.Errorf("read report %s back: %w", reportPath, err)
	}
	e, why := readEntry(dir, filepath.ToSlash(rel), course)
	if why != "" {
		return fmt.Errorf("read report %s back: %s", reportPath, why)
	}
	if err := writeTwin(dir, e); err != nil {
		return err
	}
	_, err = rebuildLocked(dir, now, version, course)
	return err
}

func rebuildLocked(dir string, now time.Time, version string, course Course) (Scan, error) {
	sc, err := ScanDir(dir, course)
	if err != nil {
		return Scan{}, err
	}
	for _, e := range sc.Entries {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(e.HTML))); os.IsNotExist(err) {
			if err := writeTwin(dir, e); err != nil {
				return Scan{}, err
			}
		}
	}
	sum := summarize(sc, course, now, version)
	if err := replaceFile(dir, IndexFile, []byte(IndexHTML(sc, sum, course, dir))); err != nil {
		return Scan{}, err
	}
	js, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return Scan{}, fmt.Errorf("encode summary: %w", err)
	}
	return sc, replaceFile(dir, SummaryFile, append(js, '\n'))
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
	titles, alts := make([]string, len(e.Figures)), make([]string, len(e.Figures))
	for i, f := range e.Figures {
		titles[i] = figureTitle(filepath.Join(dir, filepath.FromSlash(f)))
		alts[i] = figureAlt(dir, f)
	}
	return replaceFile(filepath.Dir(twin), filepath.Base(twin), []byte(ReportHTML(e, doc.Body, up, titles, alts)))
}

var (
	svgTitleElem = regexp.MustCompile(`<title>([^<]*)</title>`)
	svgBoldText  = regexp.MustCompile(`<text[^>]*font-weight="bold"[^>]*>([^<]*)</text>`)
	svgText      = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)
)

// svgTitle is an SVG's first <title>: what the figure shows (a captioned
// figure's is "<run> — <figure title>"); "" when it has none.
func svgTitle(svg string) string {
	text, err := readBounded(svg)
	if err != nil {
		return ""
	}
	if m := svgTitleElem.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(html.UnescapeString(m[1]))
	}
	return ""
}

// figureTitle is an SVG figure's own title, which the body prints above the
// figure's text drawing: its first bold text (the first text of one with
// none); "" when there is none.
func figureTitle(svg string) string {
	text, err := readBounded(svg)
	if err != nil {
		return ""
	}
	m := svgBoldText.FindStringSubmatch(text)
	if m == nil {
		m = svgText.FindStringSubmatch(text)
	}
	if m == nil {
		return ""
	}
	return strings.TrimSpace(html.UnescapeString(m[1]))
}

// replaceFile writes dir/name atomically (WriteAtomic).
func replaceFile(dir, name string, content []byte) error {
	if err := WriteAtomic(filepath.Join(dir, name), content); err != nil {
		return fmt.Errorf("write %s: %w", path.Join(filepath.Base(dir), name), unwrapPath(err))
	}
	return nil
}

// WriteAtomic writes content to path whole or not at all: a temporary file
// beside it, made readable and renamed over it. The error is the failed
// step's, for the caller to say what it was writing.
func WriteAtomic(path string, content []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
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
		err = os.Rename(tmp.Name(), path)
	}
	return err
}
