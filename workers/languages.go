package workers

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing/fstest"

	"outboxlab/grade"
)

// The languages exercise writes a starter in: Go, the default, and Python
// (standard library only, SQLite only).
const (
	LangGo     = "go"
	LangPython = "python"
)

// language is what a starter in one language is made of.
type language struct {
	// gradeBlock is the README's "grade" block (a template of readmeData).
	gradeBlock string
	// command runs the worker from its own folder: the manifest's.
	command []string
	// entry is the file a command run from elsewhere names ("": the folder).
	entry string
}

var languages = map[string]language{
	LangGo:     {gradeBlock: "_starter/grade.md", command: []string{"go", "run", "."}},
	LangPython: {gradeBlock: "_starter/python/grade.md", command: []string{"python3", "worker.py"}, entry: "worker.py"},
}

// Languages are the languages exercise writes a starter in, the default first.
func Languages() []string { return []string{LangGo, LangPython} }

// StarterIn is the starting worker of a Day in lang: Starter for Go; for
// Python, the Day's worker.py (its TODOs numbered as the Go starter's, so
// that a failing check names the same TODO in either), the lab.py every
// Python starter shares (the environment, the lab's HTTP calls, the SQLite
// connection) and the README.
func StarterIn(day, lang string) (*Files, error) {
	switch lang {
	case LangGo:
		return Starter(day)
	case LangPython:
		return pythonStarter(day)
	}
	return nil, fmt.Errorf("no starting worker in %q: there is one in %s", lang, strings.Join(Languages(), " or "))
}

// pythonStarter is a Day's Python starter: _starter/python/<folder>'s files
// and _starter/python/lab.py.
func pythonStarter(day string) (*Files, error) {
	d := grade.Lookup(day)
	if d == nil || d.Starter == "" {
		return nil, fmt.Errorf("no starting worker for %q (there is one for %s)", day, strings.Join(Days(), ", "))
	}
	s := starter{id: d.ID, folder: d.Starter, lang: LangPython}
	own, err := fs.Sub(starters, "_starter/python/"+s.folder)
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{}
	err = fs.WalkDir(own, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(own, path)
		files[path] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the Python starter of %s: %w", day, err)
	}
	lab, err := fs.ReadFile(starters, "_starter/python/lab.py")
	if err != nil {
		return nil, err
	}
	files["lab.py"] = &fstest.MapFile{Data: lab, Mode: 0o644}
	if _, ok := files["worker.py"]; !ok {
		return nil, fmt.Errorf("the Python starter of %s has no worker.py", day)
	}
	return newFiles(s, files)
}

// Language is the starter's language: LangGo or LangPython.
func (f *Files) Language() string { return f.lang }

// Manifest is the manifest exercise writes beside the starter
// (ManifestFile): the Day, and the command that runs the worker from its
// own folder (go run ., or python3 worker.py).
func (f *Files) Manifest() []byte {
	return manifest(f.day, languages[f.lang].command)
}

// GradeCommand is the command that runs the starter written into dir from
// the folder exercise ran in, as grade takes it after its --:
// go -C DIR run . (the worker built in its own folder, whatever module it
// belongs to), or python3 DIR/worker.py.
func (f *Files) GradeCommand(dir string) []string {
	l := languages[f.lang]
	if l.entry == "" {
		return []string{"go", "-C", dir, "run", "."}
	}
	return []string{l.command[0], filepath.Join(dir, l.entry)}
}

// manifest is a worker's manifest: its Day and its command.
func manifest(day string, command []string) []byte {
	b, _ := json.MarshalIndent(Manifest{Day: day, Command: command}, "", "  ")
	return append(b, '\n')
}
