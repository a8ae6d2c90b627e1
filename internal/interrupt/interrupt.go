// Package interrupt catches SIGINT and SIGTERM from the lab's first moments.
// main.go imports it first, so its init runs as early as the Go runtime lets
// a package run (after the runtime's own start and the packages it must
// follow): a signal from then on cancels Context instead of killing the
// process by the default action, and the command line, handed Context
// later, stops, cleans up and exits 3 (docs/CONTRACT.md, "Running safely").
// A second signal ends the process at once with exit 3.
//
// It imports nothing of the lab's, so nothing of the lab's can be
// initialised before it needs to be.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// ExitCode is what a second signal exits with: "the run could not happen",
// as every interruption (cli.ExitCannotRun).
const ExitCode = 3

// childVar is core/child's EnvVar: a process started as a lab child keeps
// the default signal actions, as it always had (its parent ends it).
const childVar = "OUTBOXLAB_CHILD"

var (
	ctx, cancel = context.WithCancel(context.Background())
	once        sync.Once
	installed   atomic.Bool

	// exit and stderr are the second signal's; tests replace them.
	exit             = os.Exit
	stderr io.Writer = os.Stderr
)

func init() {
	if os.Getenv(childVar) == "" {
		Install()
	}
}

// Install starts catching SIGINT and SIGTERM (init does, except in a lab
// child); calling it again does nothing.
func Install() {
	once.Do(func() {
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		installed.Store(true)
		go func() {
			<-sigs
			cancel()
			<-sigs
			fmt.Fprintln(stderr, "outboxlab: interrupted again; stopping at once")
			exit(ExitCode)
		}()
	})
}

// Installed reports whether the signals are caught here.
func Installed() bool { return installed.Load() }

// Context is cancelled by the first SIGINT or SIGTERM.
func Context() context.Context { return ctx }
