package ceiling

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sources lists the lab's non-test Go files below root: not bench/ (a
// module of its own), not testdata folders (fixtures the go tool skips).
func sources(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "testdata" || name == "bench" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// oversized lists what in one file passes the ceilings.
func oversized(fset *token.FileSet, path string, src []byte) ([]string, error) {
	var out []string
	if n := strings.Count(string(src), "\n"); n > MaxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, the ceiling is %d", path, n, MaxFileLines))
	}
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var name string
		switch fn := n.(type) {
		case *ast.FuncDecl:
			name = fn.Name.Name
		case *ast.FuncLit:
			name = "a function literal"
		default:
			return true
		}
		lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1
		if lines > MaxFuncLines {
			out = append(out, fmt.Sprintf("%s: %s is %d lines, the ceiling is %d", fset.Position(n.Pos()), name, lines, MaxFuncLines))
		}
		return true
	})
	return out, nil
}

func TestNoFileOrFunctionPastTheCeiling(t *testing.T) {
	root := filepath.Join("..", "..")
	files := sources(t, root)
	if len(files) < 200 {
		t.Fatalf("found %d Go files below %s; the walk missed the tree", len(files), root)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		over, err := oversized(fset, path, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range over {
			t.Error(o)
		}
	}
}

// The check itself can fail: a file and a function one line past.
func TestCeilingCatchesOneLinePast(t *testing.T) {
	body := "\tx := 0\n" + strings.Repeat("\tx++\n", MaxFuncLines-3)
	atCeiling := "package p\n\nfunc f() {\n" + body + "}\n"
	pastCeiling := "package p\n\nfunc f() {\n" + body + "\tx++\n}\n"
	fset := token.NewFileSet()
	if over, err := oversized(fset, "at.go", []byte(atCeiling)); err != nil || len(over) != 0 {
		t.Errorf("a function of %d lines: %v, %v; want none past", MaxFuncLines, over, err)
	}
	if over, _ := oversized(fset, "past.go", []byte(pastCeiling)); len(over) != 1 || !strings.Contains(over[0], "f is 81 lines") {
		t.Errorf("a function of %d lines: %v; want it named", MaxFuncLines+1, over)
	}
	long := "package p\n" + strings.Repeat("\n", MaxFileLines)
	if over, _ := oversized(fset, "long.go", []byte(long)); len(over) != 1 || !strings.Contains(over[0], "401 lines") {
		t.Errorf("a file of %d lines: %v; want it named", MaxFileLines+1, over)
	}
}
