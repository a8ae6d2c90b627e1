// Package workers ships the starting workers that `outboxlab exercise`
// writes for a student: for each Day, the reference worker with the Day's
// mechanism replaced by TODOs, a README, and a go.mod.
//
// The reference workers (workers/reference) and the deliberately wrong one
// (workers/wrong) are programs, not part of this package: the grade tests
// build and run them.
package workers

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing/fstest"
)

//go:embed starter
var starters embed.FS

// The drivers a starter's go.mod requires, at the versions the lab is built
// with (TestStarterGoModMatchesTheLab keeps them equal to the repo's go.mod).
const (
	goVersion    = "1.26"
	sqliteModule = "modernc.org/sqlite v1.62.0"
	pgxModule    = "github.com/jackc/pgx/v5 v5.12.0"
)

// starter is one Day's starting worker: its id, the other spellings it
// accepts, and its folder under starter/ (also its go.mod's module name).
type starter struct {
	id      string
	aliases []string
	folder  string
}

// startersByDay are the Days with a starter, in the course's order.
var startersByDay = []starter{
	{id: "session-16", aliases: []string{"day16", "16"}, folder: "day16"},
	{id: "poison-counter", folder: "poisoncounter"},
}

// Days lists the Days that have a starter, by their canonical id
// (session-16, poison-counter), in the course's order.
func Days() []string {
	out := make([]string, len(startersByDay))
	for i, s := range startersByDay {
		out[i] = s.id
	}
	return out
}

// Starter is the starting worker of a Day ("session-16", "day16", "16" or
// "poison-counter"):
// its Go files, README.md and a go.mod whose module is the Day's folder
// name. Write every file of it into the student's directory.
func Starter(day string) (fs.FS, error) {
	i := slices.IndexFunc(startersByDay, func(s starter) bool { return s.id == day || slices.Contains(s.aliases, day) })
	if i < 0 {
		return nil, fmt.Errorf("no starting worker for %q (there is one for %s)", day, strings.Join(Days(), ", "))
	}
	folder := startersByDay[i].folder
	sub, err := fs.Sub(starters, "starter/"+folder)
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{"go.mod": {Data: []byte(goMod(folder)), Mode: 0o644}}
	err = fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, path)
		if err != nil {
			return err
		}
		files[path] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the starter of %s: %w", day, err)
	}
	return files, nil
}

// goMod is a starter's go.mod: `go mod tidy` completes it (go.sum and the
// drivers' own dependencies).
func goMod(module string) string {
	return fmt.Sprintf("module %s\n\ngo %s\n\nrequire (\n\t%s\n\t%s\n)\n", module, goVersion, pgxModule, sqliteModule)
}
