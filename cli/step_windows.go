//go:build windows

package cli

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/term"
)

// watchSize sends f's window size when it changes, looked at five times a
// second (a Windows console sends no signal), until stop is called.
func watchSize(f *os.File) (sizes <-chan windowSize, stop func()) {
	ch := make(chan windowSize, 1)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		last, _ := currentSize(f)
		for {
			select {
			case <-tick.C:
			case <-done:
				return
			}
			if s, err := currentSize(f); err == nil && s != last {
				last = s
				select {
				case ch <- s:
				case <-done:
					return
				}
			}
		}
	}()
	return ch, func() { close(done) }
}

func currentSize(f *os.File) (windowSize, error) {
	w, h, err := term.GetSize(int(f.Fd()))
	return windowSize{w, h}, err
}

// enableEscapes turns on a console's processing of escape sequences
// (ENABLE_VIRTUAL_TERMINAL_PROCESSING) for w while the view runs; restore
// puts the console's mode back.
func enableEscapes(w io.Writer) (restore func()) {
	f, ok := w.(*os.File)
	if !ok {
		return func() {}
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return func() {}
	}
	if windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) != nil {
		return func() {}
	}
	return func() { windows.SetConsoleMode(h, mode) }
}
