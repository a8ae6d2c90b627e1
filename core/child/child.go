// Package child runs parts of a scenario in real child processes of the lab,
// so that a crash is a real process dying and its in-memory state is really gone.
//
// The lab re-executes its own binary with OUTBOXLAB_CHILD set to the name of a
// registered entry point. Every binary that can start children (the lab, and
// the test binaries of packages that run scenarios) calls RunIfChild first.
package child

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"outboxlab/core/proctree"
)

// EnvVar names the registered entry point a child process runs.
const EnvVar = "OUTBOXLAB_CHILD"

// Func is a child's entry point. Its return value is the child's exit code.
type Func func(ctx context.Context, args []string, stdout io.Writer) int

var (
	mu      sync.Mutex
	entries = map[string]Func{}
)

// Register makes fn runnable as a child named name. Call it from init.
// It panics on a duplicate name: a programming error.
func Register(name string, fn Func) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := entries[name]; dup {
		panic(fmt.Sprintf("child entry %q registered twice", name))
	}
	entries[name] = fn
}

// RunIfChild runs the registered entry point when this process was started as
// a child, and returns its exit code and true; otherwise it returns false.
func RunIfChild() (int, bool) {
	name := os.Getenv(EnvVar)
	if name == "" {
		// Unset or empty: an ordinary run. Only a registered name makes a child.
		return 0, false
	}
	// The child is not a child of itself: anything it runs (even cli.Main) sees a plain process.
	os.Unsetenv(EnvVar)
	watchParent()
	mu.Lock()
	fn := entries[name]
	mu.Unlock()
	if fn == nil {
		fmt.Fprintf(os.Stderr, "outboxlab child: no entry point %q\n", name)
		return 3, true
	}
	return fn(context.Background(), restoreArgs(os.Args[1:]), os.Stdout), true
}

// Command returns a command that runs the entry point name in a new process
// of the current binary, with args. The caller sets Stdout and friends.
//
// An argument holding a PostgreSQL URL (a database location, alone or as
// --flag=url) reaches the entry point unchanged but travels in the child's
// environment, not its argv, so no process list shows a password; the
// child's sessions get an application_name of their own (see EndSessions).
func Command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the lab binary to start child %s: %w", name, err)
	}
	argv, env, err := moveURLs(name, args)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, argv...)
	cmd.Env = append(append(withoutChildVars(os.Environ()), env...), EnvVar+"="+name)
	dieWithParent(cmd)
	return cmd, nil
}

func withoutChildVars(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvVar+"=") && !strings.HasPrefix(kv, argEnvPre) {
			out = append(out, kv)
		}
	}
	return out
}

// Exit is how a child process ended.
type Exit struct {
	Code   int    // exit code; -1 when killed by a signal
	Signal string // the signal that killed it, if any
	Output string // what it wrote on stdout
}

// Died reports whether the child was killed by a signal rather than exiting.
func (e Exit) Died() bool { return e.Signal != "" }

// Run runs entry point name in a child process and waits for it. A child that
// exits non-zero or is killed is not an error: that is what crash scenarios
// are about. An error means the child could not be run at all, or, for a
// child killed by a signal, that its PostgreSQL sessions could not be ended
// (see EndSessions): when Run returns, a killed child's sessions are gone.
func Run(ctx context.Context, name string, args ...string) (Exit, error) {
	cmd, err := Command(ctx, name, args...)
	if err != nil {
		return Exit{}, err
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		return Exit{}, fmt.Errorf("run child %s: %w", name, err)
	}
	if err := adopt(cmd); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return Exit{}, fmt.Errorf("run child %s: %w", name, err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Exit{}, fmt.Errorf("run child %s: %w", name, err)
	}
	how := proctree.ExitOf(cmd.ProcessState)
	exit := Exit{Code: how.Code, Signal: how.Signal, Output: out.String()}
	// A killed child's sessions may still hold row locks: what the next
	// claim skips must not depend on when the server notices.
	if exit.Died() {
		if err := EndSessions(ctx, cmd); err != nil {
			return exit, fmt.Errorf("child %s: %w", name, err)
		}
	}
	if exit.Code == 3 && !exit.Died() {
		return exit, fmt.Errorf("child %s could not run: %s", name, strings.TrimSpace(errOut.String()))
	}
	return exit, nil
}

// Die ends the calling process at once with SIGKILL (on Windows,
// TerminateProcess): no deferred function, no cleanup, no error handling
// runs. It is the poison message's real effect.
func Die() { proctree.KillSelf() }
