package grade

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers are grade's packages from the bottom up: a package imports only
// packages of a lower layer, so the Days, siblings on one layer, never
// import each other; what they share moves down (judge, dayspec). A folder
// not named here is a Day's.
var layers = [][]string{
	{"changelog", "labserver", "workerproc"},
	{"sched"},
	{"judge"},
	{"dayspec"},
	nil,   // the Days: day15, day16, day17, poisoncounter, …
	{"."}, // grade itself, the entry
}

// dayLayer is the Days' layer.
const dayLayer = 4

// TestImportsPointDown reads every Go file of grade and its packages, tests
// included, and requires each import of a grade package to point to a lower
// layer.
func TestImportsPointDown(t *testing.T) {
	layer := map[string]int{}
	for i, names := range layers {
		for _, n := range names {
			layer[n] = i
		}
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	folders, imports := []string{"."}, 0
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "testdata" {
			folders = append(folders, d.Name())
		}
	}
	for _, folder := range folders {
		from, ok := layer[folder]
		if !ok {
			from = dayLayer
		}
		files, _ := filepath.Glob(filepath.Join(folder, "*.go"))
		for _, file := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range f.Imports {
				path, _ := strconv.Unquote(spec.Path.Value)
				to, ok := strings.CutPrefix(path, "outboxlab/grade/")
				if !ok {
					continue
				}
				imports++
				l, known := layer[to]
				if !known {
					l = dayLayer
				}
				if l >= from && to != folder {
					t.Errorf("%s imports %s: layer %d imports layer %d; what they share moves down", file, path, from, l)
				}
			}
		}
	}
	if len(folders) < 11 || imports < 30 {
		t.Errorf("read %d folders and %d imports of grade packages; the walk missed the tree", len(folders), imports)
	}
}
