package workers

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// progress shows how far a drain has got, on stderr and only when stderr is
// a terminal: the report and stdout never see it.
type progress struct {
	w io.Writer // nil: show nothing
}

// newProgress returns a progress that draws on stderr when it is a terminal
// that can redraw a line.
func newProgress() *progress {
	if os.Getenv("TERM") == "dumb" || !isTerminal(os.Stderr) {
		return &progress{}
	}
	return &progress{w: os.Stderr}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// progressEvery is how often the progress line is redrawn.
const progressEvery = 100 * time.Millisecond

// start redraws "label: done/total" until the returned stop is called, which
// clears the line.
func (p *progress) start(label string, total int, done func() int) (stop func()) {
	if p == nil || p.w == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			fmt.Fprintf(p.w, "\r\x1b[Kworker-throughput  %s: %d/%d messages", label, done(), total)
			select {
			case <-quit:
				fmt.Fprint(p.w, "\r\x1b[K")
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
	}
}
