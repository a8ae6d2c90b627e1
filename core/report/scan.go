package report

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Skip is a file below a report directory that is not indexed, and why.
// Path is relative to the directory, with forward slashes.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// The bounds of a walk: an instructor's folder, not a file system.
const (
	maxScanDepth = 16
	maxScanFiles = 100000
)

// FindReports walks dir at any depth and returns the reports in it (as
// paths relative to dir, with forward slashes, in walk order) and every
// other file it met, each with why it is not a report. A report is
// recognised by its text, not its name: a file that starts with the
// run-metadata header. Left out without a word are what the lab writes
// beside reports (the index, summary.json, the HTML twins, a figure named
// after a report beside it) and hidden files and folders (.git, .DS_Store).
func FindReports(dir string) (reports []string, skipped []Skip, err error) {
	var svgs []string
	files := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == dir {
				return err
			}
			skipped = append(skipped, Skip{rel, "cannot be read: " + unwrapPath(err).Error()})
			return nil
		}
		if p == dir {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(rel, "/") >= maxScanDepth {
				skipped = append(skipped, Skip{rel + "/", fmt.Sprintf("deeper than %d folders: not searched", maxScanDepth)})
				return filepath.SkipDir
			}
			return nil
		}
		if files++; files > maxScanFiles {
			skipped = append(skipped, Skip{rel, fmt.Sprintf("more than %d files: the rest were not read", maxScanFiles)})
			return filepath.SkipAll
		}
		switch {
		case name == IndexFile || name == SummaryFile || labTwin(rel) || replayFile(name):
			// What the lab writes beside reports, in this directory or in a
			// report directory copied into it (a student's reports/).
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			skipped = append(skipped, Skip{rel, "a symbolic link (not followed)"})
			return nil
		case !d.Type().IsRegular():
			skipped = append(skipped, Skip{rel, "not a regular file"})
			return nil
		case strings.HasSuffix(name, ".svg"):
			svgs = append(svgs, rel)
			return nil
		}
		if why := notAReport(p); why != "" {
			skipped = append(skipped, Skip{rel, why})
			return nil
		}
		reports = append(reports, rel)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read report directory: %w", unwrapPath(err))
	}
	// A figure belongs to the report whose name (without .txt) it extends,
	// or, beside a renamed report, to the one whose run its title names.
	claimed := map[string]bool{}
	for _, r := range reports {
		for _, f := range captionFigures(dir, r) {
			claimed[f] = true
		}
	}
	for _, s := range svgs {
		owned := claimed[s] || slices.ContainsFunc(reports, func(r string) bool {
			return path.Dir(r) == path.Dir(s) && strings.HasPrefix(s, strings.TrimSuffix(r, path.Ext(r))+"-")
		})
		if !owned {
			skipped = append(skipped, Skip{s, "a figure with no report beside it named like it"})
		}
	}
	return reports, skipped, nil
}

// notAReport says why the file at p is not a report, or "" when it is one:
// its text starts with a whole run-metadata header.
func notAReport(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "cannot be read: " + unwrapPath(err).Error()
	}
	defer f.Close()
	head := make([]byte, len(bom)+len(HeaderStart)+2)
	n, _ := io.ReadFull(f, head)
	// A header first, after a byte-order mark, ended by LF or CRLF (Normalize).
	if !strings.HasPrefix(Normalize(strings.TrimSuffix(string(head[:n]), "\r")), HeaderStart+"\n") {
		text, err := readBounded(p)
		if err == nil && LooksLikeBody(text) {
			return "a report body without its run-metadata header: nothing records its run"
		}
		return "not an outboxlab report (it does not start with the run-metadata header)"
	}
	text, err := readBounded(p)
	if err != nil {
		return "cannot be read: " + unwrapPath(err).Error()
	}
	if _, _, ok := SplitHeader(text); !ok {
		return "its run-metadata header never ends: a report cut short"
	}
	return ""
}

// labTwin reports whether rel is an HTML twin the lab wrote: an .html file
// below a folder named TwinDir.
func labTwin(rel string) bool {
	return strings.HasSuffix(rel, ".html") && slices.Contains(strings.Split(path.Dir(rel), "/"), TwinDir)
}

// captionFigures returns the figures beside a report renamed by hand (its
// name is not the lab's, so its figures are not named after it): the SVGs
// in its folder named after no report there whose title starts with the
// caption the lab gives its run's figures (the scenario and the flags not
// at their default, as cli's runCaption writes it). nil for a report named
// as the lab names them.
func captionFigures(dir, rel string) []string {
	if reportFile.MatchString(path.Base(rel)) {
		return nil
	}
	caption := captionOf(filepath.Join(dir, filepath.FromSlash(rel)))
	if caption == "" {
		return nil
	}
	folder := path.Dir(rel)
	abs := filepath.Join(dir, filepath.FromSlash(folder))
	svgs, _ := filepath.Glob(filepath.Join(abs, "*.svg"))
	var out []string
	for _, f := range svgs {
		name := filepath.Base(f)
		if m := figureOfReport.FindStringSubmatch(name); m != nil {
			if _, err := os.Lstat(filepath.Join(abs, m[1]+".txt")); err == nil {
				continue // named after a report that is there
			}
		}
		if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if strings.HasPrefix(svgTitle(f), caption+" — ") {
			out = append(out, path.Join(folder, name))
		}
	}
	return out
}

// figureOfReport matches a figure the lab named after its report:
// <report name>-<figure>.svg.
var figureOfReport = regexp.MustCompile(`^([A-Za-z0-9-]+-RunReport-\d{8}-\d{6}(?:-\d+)?)-[a-z0-9_-]+\.svg$`)

// captionOf is the caption of the figures of the run the report at file
// records: the scenario and its flags not at their default; "" without a record.
func captionOf(file string) string {
	text, err := readBounded(file)
	if err != nil {
		return ""
	}
	doc, ok := Parse(text)
	if !ok || doc.Info.Record == nil {
		return ""
	}
	caption := doc.Info.Record.Scenario
	for _, p := range NonDefault(doc.Info.Record.Params) {
		caption += " " + p.String()
	}
	return caption
}
