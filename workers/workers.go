// Package workers ships the starting workers that `outboxlab exercise`
// writes for a student: for each Day, the reference worker with the Day's
// mechanism replaced by TODOs, a README, and a go.mod. Which Days have one,
// and its folder, each Day of grade's one list says (dayspec.Day.Starter).
//
// The reference workers (workers/reference) and the deliberately wrong one
// (workers/wrong) are programs, not part of this package: the grade tests
// build and run them. The package embeds the Go reference's lab.go and
// store.go, the one copy of what every starter shares with it.
package workers

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"testing/fstest"

	"outboxlab/grade"
)

// The starters' own files (_starter/<folder>). The go tool ignores the
// folder (its name starts with _): a starter does not compile without the
// reference's lab.go and store.go, which Starter adds.
//
//go:embed _starter
var starters embed.FS

// The reference's HTTP client and database code, which every starter
// carries unchanged: one copy, the reference's.
//
//go:embed reference/go/lab.go reference/go/store.go
var reference embed.FS

// A starter's go.mod requires the two drivers, and the modules they need,
// at the versions the lab is built with; its go.sum is the lab's own
// (_starter/go.sum). TestStarterModuleMatchesTheLab keeps both equal to the
// repository's, and builds a written starter offline.
const goVersion = "1.26.8"

var (
	drivers  = []string{"github.com/jackc/pgx/v5 v5.12.0", "modernc.org/sqlite v1.62.0"}
	indirect = []string{
		"github.com/dustin/go-humanize v1.1.0",
		"github.com/google/uuid v1.6.0",
		"github.com/jackc/pgpassfile v1.0.0",
		"github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761",
		"github.com/jackc/puddle/v2 v2.2.3",
		"github.com/mattn/go-isatty v0.0.24",
		"github.com/ncruces/go-strftime v1.1.0",
		"github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec",
		"golang.org/x/sync v0.24.0",
		"golang.org/x/sys v0.49.0",
		"golang.org/x/text v0.41.0",
		"modernc.org/libc v1.80.1",
		"modernc.org/mathutil v1.7.1",
		"modernc.org/memory v1.12.1",
	}
)

// starter is one Day's starting worker: the Day's id and its folder under
// _starter/ (also its go.mod's module name).
type starter struct {
	id     string
	folder string
	lang   string // LangGo or LangPython
}

// Days lists the Days that have a starter, by their canonical id
// (session-15, session-16, session-17, poison-counter), in the course's
// order: grade's Days (the one list) whose dayspec.Day names a Starter.
func Days() []string {
	var out []string
	for _, d := range grade.Days() {
		if d.Starter != "" {
			out = append(out, d.ID)
		}
	}
	return out
}

// Starter is the starting worker of a Day (an id of Days, or one of the
// Day's aliases: "day16"): its Go files (its own, and the reference's lab.go
// and store.go), README.md, and a go.mod (whose module is the Day's folder
// name, day16) and go.sum. As an fs.FS it holds the files for a folder of
// its own named after the Day (Placement{Dir: "day16"}), so that `go run .`
// inside the written directory builds it; At gives the files, and the README
// that describes them, for any other placement.
func Starter(day string) (*Files, error) {
	d := grade.Lookup(day)
	if d == nil || d.Starter == "" {
		return nil, fmt.Errorf("no starting worker for %q (there is one for %s)", day, strings.Join(Days(), ", "))
	}
	s := starter{id: d.ID, folder: d.Starter, lang: LangGo}
	own, err := fs.Sub(starters, "_starter/"+s.folder)
	if err != nil {
		return nil, err
	}
	shared, err := fs.Sub(reference, "reference/go")
	if err != nil {
		return nil, err
	}
	sum, err := fs.ReadFile(starters, "_starter/go.sum")
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{
		"go.mod": {Data: []byte(goMod(s.folder)), Mode: 0o644},
		"go.sum": {Data: sum, Mode: 0o644},
	}
	for _, sub := range []fs.FS{own, shared} {
		err = fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(sub, path)
			if err != nil {
				return err
			}
			files[path] = &fstest.MapFile{Data: data, Mode: 0o644}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read the starter of %s: %w", day, err)
		}
	}
	return newFiles(s, files)
}

// goMod is a starter's go.mod.
func goMod(module string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n\ngo %s\n\nrequire (\n", module, goVersion)
	for _, m := range drivers {
		fmt.Fprintf(&b, "\t%s\n", m)
	}
	b.WriteString(")\n\nrequire (\n")
	for _, m := range indirect {
		fmt.Fprintf(&b, "\t%s // indirect\n", m)
	}
	b.WriteString(")\n")
	return b.String()
}
