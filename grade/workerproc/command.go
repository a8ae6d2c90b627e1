// Package workerproc runs a student's worker command as real processes:
// `go run PKG` is built once per grade, and each start of the worker is the
// root of a process tree of its own (core/proctree), so that a kill ends
// whatever it started too; what it prints is kept for the terminal.
package workerproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Command is the worker command as grade runs it: `go run PKG ARGS` is
// built once per grade (Prepare) and then executed directly at every
// (re)start.
type Command struct {
	argv []string
	dir  string // the working directory (the lab's own)
}

// Prepare turns `go run [build flags] PKG [ARGS]` into a binary built in
// tmp, once; any other command is looked up on PATH. An error means the
// command cannot be started (exit 3); its text may hold the build's output.
func Prepare(ctx context.Context, argv []string, tmp string) (Command, error) {
	return PrepareIn(ctx, argv, tmp, "")
}

// PrepareIn is Prepare with the worker run in dir ("": the lab's working
// directory), as `cd dir && CMD` would: a relative program (./worker) and
// a `go run .` are dir's.
func PrepareIn(ctx context.Context, argv []string, tmp, dir string) (Command, error) {
	if len(argv) == 0 {
		return Command{}, errors.New("no worker command: give it after --")
	}
	wd, err := os.Getwd()
	if err != nil {
		return Command{}, fmt.Errorf("find the working directory: %w", err)
	}
	if dir != "" {
		if wd, err = filepath.Abs(dir); err != nil {
			return Command{}, fmt.Errorf("the worker's folder %s: %w", dir, err)
		}
	}
	if filepath.Base(argv[0]) == "go" {
		// `go -C DIR run …` runs in DIR, as `cd DIR && go run …` would.
		if dir, rest, ok := goChdir(argv[1:]); ok {
			wd = filepath.Join(wd, dir)
			if filepath.IsAbs(dir) {
				wd = dir
			}
			argv = append([]string{argv[0]}, rest...)
		}
		if len(argv) >= 3 && argv[1] == "run" {
			return buildGoRun(ctx, argv, tmp, wd)
		}
	}
	prog := argv[0]
	if dir != "" && strings.ContainsAny(prog, `/\`) && !filepath.IsAbs(prog) {
		prog = filepath.Join(wd, prog) // a program in the worker's folder
	}
	if _, err := exec.LookPath(prog); err != nil {
		return Command{}, fmt.Errorf("cannot start the worker %q: %w", argv[0], unwrapExec(err))
	}
	return Command{argv: append([]string{prog}, argv[1:]...), dir: wd}, nil
}

// goChdir reads a leading -C DIR (or -C=DIR) of go's command line, the
// only flag go takes before its subcommand.
func goChdir(args []string) (dir string, rest []string, ok bool) {
	switch {
	case len(args) >= 2 && (args[0] == "-C" || args[0] == "--C"):
		return args[1], args[2:], true
	case len(args) >= 1 && (strings.HasPrefix(args[0], "-C=") || strings.HasPrefix(args[0], "--C=")):
		return args[0][strings.IndexByte(args[0], '=')+1:], args[1:], true
	}
	return "", args, false
}

// buildGoRun compiles the package of a `go run` command into tmp.
func buildGoRun(ctx context.Context, argv []string, tmp, wd string) (Command, error) {
	rest := argv[2:]
	var flags, pkg []string
	i := 0
	for ; i < len(rest) && strings.HasPrefix(rest[i], "-"); i++ {
		flags = append(flags, rest[i])
	}
	if i < len(rest) && strings.HasSuffix(rest[i], ".go") {
		for ; i < len(rest) && strings.HasSuffix(rest[i], ".go"); i++ {
			pkg = append(pkg, rest[i])
		}
	} else if i < len(rest) {
		pkg = append(pkg, rest[i])
		i++
	}
	if len(pkg) == 0 {
		return Command{}, errors.New("go run: no package to run")
	}
	bin := filepath.Join(tmp, "worker")
	args := append(append([]string{"build", "-o", bin}, flags...), pkg...)
	build := exec.CommandContext(ctx, argv[0], args...)
	build.Dir = wd
	var out bytes.Buffer
	build.Stdout, build.Stderr = &out, &out
	if err := build.Run(); err != nil {
		return Command{}, fmt.Errorf("cannot build the worker (go %s): %v\n%s",
			strings.Join(args, " "), unwrapExec(err), tail(out.String(), 20))
	}
	return Command{argv: append([]string{bin}, rest[i:]...), dir: wd}, nil
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
