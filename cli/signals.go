package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"outboxlab/cli/cmdutil"
	"sync"
	"syscall"
)

// exitNow ends the process; tests replace it.
var exitNow = os.Exit

// interruptible returns a context that the first SIGINT or SIGTERM cancels,
// so the run stops, cleans up and says so. A second signal ends the process
// at once (exit 3): whatever is blocking, the user is never held hostage, and
// the next run removes what was left behind. stop releases the signals.
func interruptible(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "outboxlab: interrupted again; stopping at once")
			exitNow(cmdutil.ExitCannotRun)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
}

var ignorePipeOnce sync.Once

// survivePipeClose makes a write to a closed stdout or stderr (`| head`,
// quitting `less`) fail with EPIPE instead of killing the process, so the run
// still completes, writes its report and cleans up.
func survivePipeClose() {
	ignorePipeOnce.Do(func() {
		// Notify, not Ignore: with a channel registered, Go turns SIGPIPE on
		// fd 1 and 2 into an EPIPE error from the write (os/signal docs).
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	})
}
