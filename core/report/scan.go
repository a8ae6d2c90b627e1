package report

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
		case name == IndexFile || name == SummaryFile || labTwin(rel):
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
	// A figure belongs to the report whose name (without .txt) it extends.
	for _, s := range svgs {
		owned := slices.ContainsFunc(reports, func(r string) bool {
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
	head := make([]byte, len(HeaderStart)+1)
	n, _ := io.ReadFull(f, head)
	if !bytes.Equal(head[:n], []byte(HeaderStart+"\n")) {
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
