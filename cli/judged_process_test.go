package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestJudgedTestsShareAProcess: the tests that read the shared runs
// (judgedRunOf, through runJudged or judgeAll) are the Makefile's JUDGED,
// which make test runs in one test process and skips in cli's other one.
// A test that reads them from the other process would make every run it
// reads a second time (the flag extremes alone are minutes of CPU), and a
// name in JUDGED that no test has would leave that test to neither.
func TestJudgedTestsShareAProcess(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^JUDGED = (.+)$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("the Makefile has no line JUDGED = Test…|Test…")
	}
	listed := strings.Split(strings.TrimSpace(string(m[1])), "|")
	var readers, tests []string
	files, _ := filepath.Glob("*_test.go")
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			tests = append(tests, fn.Name.Name)
			if readsJudgedRuns(fn) {
				readers = append(readers, fn.Name.Name)
			}
		}
	}
	for _, r := range readers {
		if !slices.Contains(listed, r) {
			t.Errorf("%s reads the shared runs but is not in the Makefile's JUDGED: add it", r)
		}
	}
	for _, l := range listed {
		if !slices.Contains(tests, l) {
			t.Errorf("the Makefile's JUDGED names %s, which is no test of cli", l)
		}
	}
}

// readsJudgedRuns reports whether fn calls one of the functions that read
// the shared runs.
func readsJudgedRuns(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && (id.Name == "runJudged" || id.Name == "judgeAll" || id.Name == "judgedRunOf") {
			found = true
		}
		return !found
	})
	return found
}
