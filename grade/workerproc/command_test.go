package workerproc

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGoChdirReadsDashC(t *testing.T) {
	cases := []struct {
		args    []string
		dir     string
		rest    []string
		changes bool
	}{
		{[]string{"-C", "day16", "run", "."}, "day16", []string{"run", "."}, true},
		{[]string{"-C=my dir", "run", "."}, "my dir", []string{"run", "."}, true},
		{[]string{"run", "-C", "x", "."}, "", []string{"run", "-C", "x", "."}, false},
		{[]string{"-C"}, "", []string{"-C"}, false},
	}
	for _, c := range cases {
		dir, rest, ok := goChdir(c.args)
		if dir != c.dir || !reflect.DeepEqual(rest, c.rest) || ok != c.changes {
			t.Errorf("goChdir(%q) = %q, %q, %v; want %q, %q, %v", c.args, dir, rest, ok, c.dir, c.rest, c.changes)
		}
	}
}

// `go -C DIR run .`, as `exercise` may print it, is built once like any
// `go run`, from DIR, and the worker runs in DIR.
func TestGoRunWithDashCIsBuiltOnce(t *testing.T) {
	tmp := t.TempDir()
	c, err := Prepare(context.Background(), []string{"go", "-C", "../testdata/ok16", "run", "."}, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(tmp, "worker"); len(c.argv) != 1 || c.argv[0] != want {
		t.Errorf("argv = %q, want the built binary %s alone", c.argv, want)
	}
	if filepath.Base(c.dir) != "ok16" {
		t.Errorf("the worker runs in %s, want testdata/ok16", c.dir)
	}
}
