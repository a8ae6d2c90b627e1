package workers

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress shows how far a drain has got on the writer the harness gives a
// run for that (scenarios.Env.Progress: stderr, only when it is a terminal
// that can redraw a line): the report and stdout never see it.
type progress struct {
	w io.Writer // nil: show nothing
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
