package grade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"outboxlab/core/proctree"
)

// A worker is a real process at the root of a tree of its own: `go run` and
// `dotnet run` start the real worker as a grandchild, so a kill ends the
// whole tree and waits until no process of it is left.

// command is the worker command as grade runs it: `go run PKG ARGS` is built
// once per grade (Prepare) and then executed directly at every (re)start.
type command struct {
	argv []string
	dir  string // the working directory (the lab's own)
}

// prepareCommand turns `go run [build flags] PKG [ARGS]` into a binary built
// in tmp, once; any other command is looked up on PATH. An error means the
// command cannot be started (exit 3); its text may hold the build's output.
func prepareCommand(ctx context.Context, argv []string, tmp string) (command, error) {
	if len(argv) == 0 {
		return command{}, errors.New("no worker command: give it after --")
	}
	wd, err := os.Getwd()
	if err != nil {
		return command{}, fmt.Errorf("find the working directory: %w", err)
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
	if _, err := exec.LookPath(argv[0]); err != nil {
		return command{}, fmt.Errorf("cannot start the worker %q: %w", argv[0], unwrapExec(err))
	}
	return command{argv: argv, dir: wd}, nil
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
func buildGoRun(ctx context.Context, argv []string, tmp, wd string) (command, error) {
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
		return command{}, errors.New("go run: no package to run")
	}
	bin := filepath.Join(tmp, "worker")
	args := append(append([]string{"build", "-o", bin}, flags...), pkg...)
	build := exec.CommandContext(ctx, argv[0], args...)
	build.Dir = wd
	var out bytes.Buffer
	build.Stdout, build.Stderr = &out, &out
	if err := build.Run(); err != nil {
		return command{}, fmt.Errorf("cannot build the worker (go %s): %v\n%s",
			strings.Join(args, " "), unwrapExec(err), tail(out.String(), 20))
	}
	return command{argv: append([]string{bin}, rest[i:]...), dir: wd}, nil
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// process is one incarnation of a worker: the root of a process tree of its
// own (core/proctree), so a kill ends whatever the worker started too.
type process struct {
	tree   *proctree.Tree
	exited <-chan struct{} // closed once the direct child is reaped
}

// exit is how the direct child ended; read it once exited is closed.
func (p *process) exit() proctree.Exit { return p.tree.Exit() }

// start starts cmd with env as the root of a new tree; stdout and stderr go to out.
func start(c command, env []string, out io.Writer) (*process, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = c.dir
	cmd.Env = env
	// Our own pipe, not exec's copying goroutine: Wait must return when the
	// child exits even if a grandchild still holds the pipe open.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the worker: %w", err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	tree, err := proctree.Start(cmd)
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("cannot start the worker %q: %w", c.argv[0], unwrapExec(err))
	}
	go func() {
		io.Copy(out, r)
		r.Close()
	}()
	return &process{tree: tree, exited: tree.Exited()}, nil
}

// kill ends the whole tree and waits until none of it is left and the
// direct child is reaped.
func (p *process) kill() error {
	if err := p.tree.Kill(); err != nil {
		return fmt.Errorf("worker process %d: %w", p.tree.Pid(), err)
	}
	return nil
}

// ring keeps the last bytes written to it: a worker's output, shown on the
// terminal when a run fails, never in the report.
type ring struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newRing(max int) *ring { return &ring{max: max} }

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// Tail returns the last n lines written.
func (r *ring) Tail(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return tail(string(r.buf), n)
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
