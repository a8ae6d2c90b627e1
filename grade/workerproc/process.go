package workerproc

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"outboxlab/core/proctree"
)

// Process is one start of a worker: the root of a process tree of its own
// (core/proctree), so a kill ends whatever the worker started too. `go run`
// and `dotnet run` start the real worker as a grandchild.
type Process struct {
	tree   *proctree.Tree
	exited <-chan struct{} // closed once the direct child is reaped
}

// Start starts c with env as the root of a new tree; its stdout and stderr
// go to out.
func (c Command) Start(env []string, out io.Writer) (*Process, error) {
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
	return &Process{tree: tree, exited: tree.Exited()}, nil
}

// Exited is closed once the direct child is reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Exit is how the direct child ended; read it once Exited is closed.
func (p *Process) Exit() proctree.Exit { return p.tree.Exit() }

// Kill ends the whole tree and waits until none of it is left and the
// direct child is reaped.
func (p *Process) Kill() error {
	if err := p.tree.Kill(); err != nil {
		return fmt.Errorf("worker process %d: %w", p.tree.Pid(), err)
	}
	return nil
}

// Ring keeps the last bytes written to it: a worker's output, shown on the
// terminal when a run fails, never in the report.
type Ring struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// NewRing keeps the last max bytes.
func NewRing(max int) *Ring { return &Ring{max: max} }

func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.max; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// Tail returns the last n lines written.
func (r *Ring) Tail(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return tail(string(r.buf), n)
}
