package workers

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"strings"
	"testing/fstest"
	"text/template"
)

// Placement is where a starter is written. It decides which files it gets
// and what its README says about them and about how to grade the worker:
// inside the lab's module the starter is part of that module (no go.mod or
// go.sum of its own) and is graded from the lab's root; anywhere else it is
// a module of its own, graded from its own folder.
type Placement struct {
	// Dir is the folder the starter is written into, as its README names it
	// (exercise gives the absolute path).
	Dir string
	// LabRoot is the root of the lab's module (the folder of its go.mod)
	// when Dir lies inside it, else empty.
	LabRoot string
}

// moduleFiles are the starter's files that make it a module of its own.
var moduleFiles = []string{"go.mod", "go.sum"}

// Files is a Day's starting worker. As an fs.FS it holds the files of the
// starter written into a folder of its own named after the Day (day16);
// At gives them for another placement.
type Files struct {
	fstest.MapFS
	day    string             // the Day's id, session-16
	folder string             // its folder name, day16
	lang   string             // LangGo or LangPython
	readme *template.Template // README.md, a template of readmeData
}

// readmeData is what a starter's README says about where it was written:
// the shared "grade" block (_starter/grade.md) renders it.
type readmeData struct {
	Day       string // the Day's id, as grade takes it
	OwnModule bool   // the folder has its own go.mod and go.sum
	Cd        string // the folder to grade from, quoted for a shell
	Worker    string // the package to go run from there, quoted for a shell
}

// newFiles makes s's Files from its files, whose README.md is a template.
func newFiles(s starter, files fstest.MapFS) (*Files, error) {
	block := languages[s.lang].gradeBlock
	shared, err := fs.ReadFile(starters, block)
	if err != nil {
		return nil, err
	}
	t := template.New("README.md").Option("missingkey=error")
	if _, err := t.Parse(string(shared)); err != nil {
		return nil, fmt.Errorf("parse %s: %w", block, err)
	}
	if _, err := t.Parse(string(files["README.md"].Data)); err != nil {
		return nil, fmt.Errorf("parse the README of %s: %w", s.id, err)
	}
	f := &Files{day: s.id, folder: s.folder, lang: s.lang, readme: t}
	placed, err := f.place(files, Placement{Dir: s.folder})
	if err != nil {
		return nil, err
	}
	f.MapFS = placed
	return f, nil
}

// At returns the starter's files for p: without go.mod and go.sum inside the
// lab's module, and a README that says which, and how to grade it from
// where it says. A Python starter is the same files wherever it goes
// (p.LabRoot changes nothing): python3 runs it from any folder.
func (f *Files) At(p Placement) (fs.FS, error) {
	return f.place(f.MapFS, p)
}

func (f *Files) place(files fstest.MapFS, p Placement) (fstest.MapFS, error) {
	out := maps.Clone(files)
	data := readmeData{Day: f.day, OwnModule: true, Cd: shellQuote(p.Dir), Worker: "."}
	if p.LabRoot != "" && f.lang == LangGo {
		rel, err := filepath.Rel(p.LabRoot, p.Dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s is not inside the lab's module at %s", p.Dir, p.LabRoot)
		}
		for _, name := range moduleFiles {
			delete(out, name)
		}
		data.OwnModule = false
		data.Cd = shellQuote(p.LabRoot)
		data.Worker = shellQuote("./" + filepath.ToSlash(rel))
	}
	var b bytes.Buffer
	if err := f.readme.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("write the README of %s: %w", f.day, err)
	}
	out["README.md"] = &fstest.MapFile{Data: b.Bytes(), Mode: 0o644}
	return out, nil
}

// shellQuote quotes s for a POSIX shell (and PowerShell) when it holds
// anything but letters, digits and _ . / : @ % + = , -.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+=,-", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
