//go:build unix

package cli

import (
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// watchSize sends f's window size each time the terminal says it changed
// (SIGWINCH), until stop is called.
func watchSize(f *os.File) (sizes <-chan windowSize, stop func()) {
	ch := make(chan windowSize, 1)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sig:
			case <-done:
				return
			}
			if w, h, err := term.GetSize(int(f.Fd())); err == nil {
				select {
				case ch <- windowSize{w, h}:
				case <-done:
					return
				}
			}
		}
	}()
	return ch, func() { signal.Stop(sig); close(done) }
}

// enableEscapes makes w act on escape sequences: a Unix terminal always does.
func enableEscapes(io.Writer) (restore func()) { return func() {} }
