// Package dirsnap lets a test prove that something left a directory as it
// was: a snapshot of every file's bytes, compared after the fact.
package dirsnap

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Take maps every file in dir to its bytes (anything but a regular file to
// its type: reading a named pipe would block).
func Take(t testing.TB, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			files[e.Name()] = e.Type().String()
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// AssertUnchanged fails t unless dir holds exactly the files of before, with
// the same bytes, except the contents of those named in mayChange.
func AssertUnchanged(t testing.TB, dir string, before map[string]string, mayChange ...string) {
	t.Helper()
	after := Take(t, dir)
	if got, want := slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)); !slices.Equal(got, want) {
		t.Errorf("files in %s: %v, want %v", dir, got, want)
	}
	for name, b := range before {
		if a, ok := after[name]; ok && a != b && !slices.Contains(mayChange, name) {
			var diff []int
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					diff = append(diff, i)
				}
			}
			t.Errorf("%s changed: %d bytes before, %d after, differing at %v", name, len(b), len(a), diff)
		}
	}
}
