package similarity

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func printOf(t *testing.T, files map[string]string) Print {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	p, err := Of(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// disguise renames every identifier it is given, rewrites the comments and
// re-spaces the code: what a student hiding a copy does.
func disguise(src string, renames map[string]string) string {
	for from, to := range renames {
		src = regexp.MustCompile(`\b`+from+`\b`).ReplaceAllString(src, to)
	}
	src = regexp.MustCompile(`(?m)#.*$`).ReplaceAllString(src, "# my own work")
	return strings.ReplaceAll(src, " = ", "   =   ")
}

// TestScore: a disguised copy of the Python reference scores near 1 against
// it; the Go reference, a different program doing the same, scores low; so
// does a worker too small to judge (0).
func TestScore(t *testing.T) {
	ref := read(t, "../../workers/reference/python/worker.py")
	refPrint := printOf(t, map[string]string{"worker.py": ref})
	copied := printOf(t, map[string]string{"solution.py": disguise(ref, map[string]string{
		"time_text": "fmt_ts", "parse_time": "read_ts", "ms": "millis", "text": "s"})})
	if s := Score(refPrint, copied); s < 0.9 {
		t.Errorf("a disguised copy scores %.2f against the reference, want at least 0.9", s)
	}
	goRef := map[string]string{}
	for _, f := range []string{"main.go", "worker.go", "redrive.go", "lab.go", "store.go"} {
		goRef[f] = read(t, "../../workers/reference/go/"+f)
	}
	if s := Score(refPrint, printOf(t, goRef)); s > 0.2 {
		t.Errorf("the Go reference scores %.2f against the Python one, want at most 0.2", s)
	}
	if s := Score(refPrint, printOf(t, map[string]string{"w.py": "print('hello')\n"})); s != 0 {
		t.Errorf("a tiny worker scores %.2f, want 0 (nothing to judge)", s)
	}
}

// TestWithoutBase: code every student was given counts for nothing: two
// workers that share only the starter score 0 once it is taken out.
func TestWithoutBase(t *testing.T) {
	base := printOf(t, map[string]string{"lab.go": read(t, "../../workers/reference/go/lab.go")})
	a := printOf(t, map[string]string{"lab.go": read(t, "../../workers/reference/go/lab.go"),
		"w.go": read(t, "../../workers/reference/go/worker.go")})
	b := printOf(t, map[string]string{"lab.go": read(t, "../../workers/reference/go/lab.go"),
		"w.go": read(t, "../../workers/reference/go/redrive.go")})
	if s := Score(a, b); s < 0.3 {
		t.Fatalf("with the shared file in, %.2f: the test's premise fails", s)
	}
	if s := Score(a.Without(base), b.Without(base)); s > 0.2 {
		t.Errorf("with the shared file out, %.2f, want at most 0.2", s)
	}
}

// TestTokens: comments, spacing and names make no difference; structure does.
func TestTokens(t *testing.T) {
	a := tokens("x := f(1) // one\n/* block */ return x", cLike)
	b := tokens("total:=compute( 42 )\nreturn total", cLike)
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("%q != %q", a, b)
	}
	if c := tokens("x := f(1, 2)", cLike); strings.Join(a[:len(c)], " ") == strings.Join(c, " ") {
		t.Errorf("another call's shape reads the same: %q", c)
	}
	if got := strings.Join(tokens("def f(s):  # note\n    return '''doc ''' + s", hashLine), " "); got != "def id ( id ) : return s + id" {
		t.Errorf("python: %q", got)
	}
}
