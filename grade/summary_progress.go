package grade

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progress shows how far a grade has got on a terminal's stderr (Options.
// Progress: set only when stderr is a terminal that can redraw a line): the
// variation it runs, the lab calls answered so far and the wall time, a
// line redrawn often enough that the terminal is never silent for a second,
// even while a worker builds. The report and stdout never see it.
type progress struct {
	w       io.Writer // nil: show nothing
	mu      sync.Mutex
	what    atomic.Value // string: what runs now ("variation 2 of 4")
	calls   atomic.Int64
	started time.Time
	quit    chan struct{}
	wg      sync.WaitGroup
}

// progressEvery is how often the progress line is redrawn.
const progressEvery = 200 * time.Millisecond

// startProgress redraws the line on w until stop; nil w shows nothing.
func startProgress(w io.Writer) *progress {
	p := &progress{w: w, started: time.Now(), quit: make(chan struct{})}
	p.what.Store("starting")
	if w == nil {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			p.draw()
			select {
			case <-p.quit:
				p.mu.Lock()
				fmt.Fprint(p.w, "\r\x1b[K")
				p.mu.Unlock()
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\x1b[Kgrading %s · %d lab calls · %.1f s", p.what.Load(), p.calls.Load(),
		time.Since(p.started).Seconds())
}

// at says what runs now.
func (p *progress) at(what string) { p.what.Store(what) }

// call counts a lab call answered.
func (p *progress) call() { p.calls.Add(1) }

// print writes lines to w (the terminal's stderr) with the progress line
// out of their way.
func (p *progress) print(w io.Writer, lines []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// stop clears the line and ends the redrawing.
func (p *progress) stop() {
	if p.w == nil {
		return
	}
	close(p.quit)
	p.wg.Wait()
}
