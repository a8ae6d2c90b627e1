// Package exercise is `outboxlab exercise`: writes a Day's starting
// worker and its README into a folder, for grade to judge.
package exercise

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/internal/invocation"
	"outboxlab/workers"
)

// The starting workers exercise writes: the workers package's.
var (
	starterFor  = workers.StarterIn
	starterDays = workers.Days
)

// NewCmd is the exercise command.
func NewCmd() *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "exercise <day> DIR",
		Short: "Write a starting worker (Go or Python, with TODOs) and its README into DIR, for grade to judge",
		Long: `exercise writes a starting worker for a Day into DIR (created if missing; files
already there are never overwritten): a program that already speaks the grading
protocol (docs/grade-protocol.md) and leaves the Day's mechanism to you as
numbered TODOs, a README saying what to implement and how to grade it, and the
manifest (` + workers.ManifestFile + `) that class --regrade runs. As written it
fails grade, and each failing check names the TODO it belongs to.

--lang go (the default) writes a Go module; --lang python a worker.py and lab.py
that need only Python 3's standard library (SQLite only), with the same
numbered TODOs.

Days with a starting worker: ` + strings.Join(starterDays(), ", ") + ` (and their dayNN aliases).
grade itself judges a worker in any language for every Day it lists.`,
		Example: `  outboxlab exercise session-16 ./day16
  outboxlab grade session-16 -- go -C ./day16 run .
  outboxlab exercise session-16 ./day16py --lang python
  outboxlab grade session-16 -- python3 day16py/worker.py`,
		GroupID: "lab",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return cmdutil.Usagef("exercise needs a day and a directory: outboxlab exercise session-16 ./day16")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			day, err := cmdutil.LookupDay(args[0])
			if err != nil {
				return err
			}
			if !slices.Contains(workers.Languages(), lang) {
				return cmdutil.Usagef("--lang %q: exercise writes a starting worker in %s", lang, strings.Join(workers.Languages(), " or "))
			}
			if !slices.Contains(starterDays(), day.ID) {
				return cmdutil.Usagef("no starting worker for %s yet (there is one for %s); grade judges any worker you write",
					day.ID, strings.Join(starterDays(), ", "))
			}
			files, err := starterFor(day.ID, lang)
			if err != nil {
				return cmdutil.CannotRun(err)
			}
			inLab := false // a Python starter is the same files anywhere
			if lang == workers.LangGo {
				if inLab, err = insideLabModule(args[1]); err != nil {
					return cmdutil.CannotRun(err)
				}
			}
			written, err := writeStarter(files, args[1], inLab)
			if err != nil {
				return cmdutil.CannotRun(err)
			}
			w := cmd.OutOrStdout()
			for _, f := range written {
				fmt.Fprintf(w, "wrote    %s\n", f)
			}
			fmt.Fprint(w, cmdutil.Printed(cmd, gradeNext(day.ID, args[1], files)))
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", workers.LangGo, "the starting worker's language: "+strings.Join(workers.Languages(), " or "))
	return cmd
}

// gradeNext is exercise's last lines: read the README, then grade the
// starter, which fails until its TODOs are done (exit 1), with a command
// that runs as printed from where exercise ran (workers.Files.GradeCommand):
// `go -C DIR run .` builds the worker in its folder, inside the lab's module
// or in a module of its own, while the lab runs from here (a `cd DIR` first
// would leave a lab started with `go run .` building the worker instead);
// `python3 DIR/worker.py` runs from anywhere.
func gradeNext(day, dir string, files *workers.Files) string {
	command := files.GradeCommand(dir)
	for i, word := range command {
		command[i] = invocation.Quote(word)
	}
	return fmt.Sprintf("Next:    read %s, then grade it (exit 1 until its TODOs are done):\n"+
		"         outboxlab grade %s -- %s\n", filepath.Join(dir, "README.md"), day, strings.Join(command, " "))
}

// insideLabModule reports whether a starter written into dir (which may not
// exist yet) is part of the lab's own Go module: dir lies inside the folder
// whose go.mod says "module outboxlab", and its path from there is a Go
// package path. A starter written there belongs to that module, which
// already requires its drivers, so `go run ./day16` from the lab's root
// builds it; anywhere else (`my work/day16` inside the lab too: no package
// path holds a space) it is a module of its own (its go.mod and go.sum),
// built with `go run .` in its folder.
func insideLabModule(dir string) (bool, error) {
	root, err := LabModuleRoot(dir)
	if err != nil || root == "" {
		return false, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return false, err
	}
	return packagePathOK(filepath.ToSlash(rel)), nil
}

// packagePathOK reports whether rel can name a package below a module's root:
// each element made of letters, digits and - . _ ~ +, and neither starting
// nor ending with a dot (the go command's rule for import paths).
func packagePathOK(rel string) bool {
	for _, elem := range strings.Split(rel, "/") {
		if elem == "" || strings.HasPrefix(elem, ".") || strings.HasSuffix(elem, ".") {
			return false
		}
		for _, r := range elem {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+", r)) {
				return false
			}
		}
	}
	return true
}

// labModuleRoot is the root of the lab's module (the absolute folder of its
// go.mod) when dir lies inside it, else "" (invocation.ModuleRoot, which
// also tells go run's invocation from a folder below the root).
func LabModuleRoot(dir string) (string, error) {
	if _, err := filepath.Abs(dir); err != nil {
		return "", err
	}
	return invocation.ModuleRoot(dir), nil
}

// writeStarter writes the starter's files for dir under dir, refusing to
// replace one that exists, and returns the paths written. Inside the lab's
// module (inLab) the starter has no go.mod and go.sum, and its README says
// so and grades it from the lab's root (workers.Placement). Beside them goes
// the worker's manifest (workers.ManifestFile: the Day, and `go run .` or
// `python3 worker.py` from the folder), so the folder a student hands in is
// one class regrades.
func writeStarter(starter *workers.Files, dir string, inLab bool) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	place := workers.Placement{Dir: abs}
	if inLab {
		if place.LabRoot, err = LabModuleRoot(dir); err != nil {
			return nil, err
		}
	}
	files, err := starter.At(place)
	if err != nil {
		return nil, err
	}
	var paths []string
	err = fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		paths = append(paths, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the starting worker: %w", err)
	}
	paths = append(paths, workers.ManifestFile)
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			return nil, fmt.Errorf("%s exists already: exercise never overwrites a file (choose another DIR)",
				filepath.Join(dir, p))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	var written []string
	for _, p := range paths {
		data, err := fs.ReadFile(files, p)
		if p == workers.ManifestFile {
			data, err = starter.Manifest(), nil
		}
		if err != nil {
			return written, err
		}
		target := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return written, fmt.Errorf("create %s: %w", filepath.Dir(target), err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return written, fmt.Errorf("write %s: %w", target, err)
		}
		written = append(written, target)
	}
	return written, nil
}
