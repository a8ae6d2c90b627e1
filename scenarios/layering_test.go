package scenarios

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shared are the folders under scenarios that every family may import: they
// sit below the families, like package scenarios itself.
var shared = map[string]bool{"scenariotest": true}

// TestNoFamilyImportsAnother keeps the families siblings: what two of them
// share lives in package scenarios (or a shared folder), never in one of them.
// It reads every Go file under scenarios/, tests included, with go/parser.
func TestNoFamilyImportsAnother(t *testing.T) {
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	folders, imports := 0, 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "testdata" {
			continue
		}
		folders++
		files, err := filepath.Glob(filepath.Join(d.Name(), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range f.Imports {
				path, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				other, ok := strings.CutPrefix(path, "outboxlab/scenarios/")
				if !ok {
					continue
				}
				imports++
				if folder, _, _ := strings.Cut(other, "/"); folder != d.Name() && !shared[folder] {
					t.Errorf("%s imports %s: family %s imports family %s; move what they share into package scenarios",
						file, path, d.Name(), folder)
				}
			}
		}
	}
	// The check must have had something to judge: five families and
	// scenariotest, whose tests import scenariotest.
	if folders < 6 || imports == 0 {
		t.Errorf("read %d folders and %d imports of scenarios/..., want at least 6 folders and some imports", folders, imports)
	}
}
