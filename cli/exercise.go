package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/grade"
)

// The starting workers exercise writes, wired in one place: the workers
// package's Starter and Days have the same signatures.
var (
	starterFor  = grade.Starter
	starterDays = grade.StarterDays
)

func newExerciseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "exercise <day> DIR",
		Short: "Write a starting worker (Go, with TODOs) and its README into DIR, for grade to judge",
		Long: `exercise writes a starting worker for a Day into DIR (created if missing; files
already there are never overwritten): a Go program that already speaks the grading
protocol (docs/grade-protocol.md) and leaves the Day's mechanism to you as TODOs,
and a README saying what to implement and how to grade it. As written it fails
grade, with checks that say what is missing.

Days with a starting worker: ` + strings.Join(starterDays(), ", ") + ` (and their dayNN aliases).
grade itself judges a worker in any language for every Day it lists.`,
		Example: `  outboxlab exercise session-16 ./day16
  outboxlab grade session-16 -- go run ./day16`,
		GroupID: "lab",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("exercise needs a day and a directory: outboxlab exercise session-16 ./day16")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			day, err := lookupDay(args[0])
			if err != nil {
				return err
			}
			if !slices.Contains(starterDays(), day.ID) {
				return usagef("no starting worker for %s yet (there is one for %s); grade judges any worker you write",
					day.ID, strings.Join(starterDays(), ", "))
			}
			files, err := starterFor(day.ID)
			if err != nil {
				return cannotRun(err)
			}
			written, err := writeStarter(files, args[1])
			if err != nil {
				return cannotRun(err)
			}
			w := cmd.OutOrStdout()
			for _, f := range written {
				fmt.Fprintf(w, "wrote    %s\n", f)
			}
			fmt.Fprintf(w, "Next:    read %s, then: outboxlab grade %s -- go run %s\n",
				filepath.Join(args[1], "README.md"), day.ID, goRunTarget(args[1]))
			return nil
		},
	}
	return cmd
}

// goRunTarget is how `go run` names dir: ./day16 for day16.
func goRunTarget(dir string) string {
	if filepath.IsAbs(dir) || strings.HasPrefix(dir, ".") {
		return dir
	}
	return "./" + dir
}

// writeStarter writes every file of files under dir, refusing to replace one
// that exists, and returns the paths written.
func writeStarter(files fs.FS, dir string) ([]string, error) {
	var paths []string
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		paths = append(paths, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the starting worker: %w", err)
	}
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
