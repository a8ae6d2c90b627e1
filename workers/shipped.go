package workers

import (
	"embed"
	"io/fs"
)

// The reference workers as the repository ships them: every student who
// clones the lab has them, so class compares each worker handed in with them.
//
//go:embed reference/go/*.go reference/python/*.py
var shipped embed.FS

// References are the shipped reference workers, by their folder in the
// repository (workers/reference/go, workers/reference/python).
func References() map[string]fs.FS {
	out := map[string]fs.FS{}
	for _, lang := range []string{"go", "python"} {
		sub, err := fs.Sub(shipped, "reference/"+lang)
		if err != nil {
			panic(err) // embedded above: a bug
		}
		out["workers/reference/"+lang] = sub
	}
	return out
}

// Given is the code every student is given: each Day's starter in every
// language (its own files, and the reference's lab.go and store.go, or the
// Python starters' lab.py). What two workers share of it says nothing about
// copying.
func Given() []fs.FS {
	var out []fs.FS
	for _, day := range Days() {
		for _, lang := range Languages() {
			if s, err := StarterIn(day, lang); err == nil {
				out = append(out, s.MapFS)
			}
		}
	}
	return out
}
