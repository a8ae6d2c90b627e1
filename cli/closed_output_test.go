//go:build unix

package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A closed stdout (`| head`) is a run that still counts; a broken pipe
// anywhere else is not. The errors are real ones: a write to a pipe named as
// the lab's stdout whose reader is gone, to a child's pipe whose reader is
// gone, and to a unix socket whose peer closed (a database server that went
// away: before, a run whose server stopped as it began exited 0 in silence).
func TestOnlyTheLabsOwnOutputIsAClosedOutput(t *testing.T) {
	brokenPipe := func(name string) error {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		// The write end again, under name, as a file of its own: one owner
		// per descriptor (a second os.File on w's would close it twice, the
		// second time under whatever the number was reused for).
		fd, err := syscall.Dup(int(w.Fd()))
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		f := os.NewFile(uintptr(fd), name)
		defer f.Close()
		_, err = f.Write([]byte("report\n"))
		if err == nil {
			t.Fatal("a write to a pipe without a reader succeeded")
		}
		return err
	}
	sock := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var serverGone error
	for range 1000 {
		if _, serverGone = c.Write(make([]byte, 4096)); serverGone != nil {
			break
		}
	}
	for _, tc := range []struct {
		what   string
		err    error
		closed bool
	}{
		{"stdout", brokenPipe(os.Stdout.Name()), true},
		{"stderr", brokenPipe(os.Stderr.Name()), true},
		{"stdout, wrapped", fmt.Errorf("print result: %w", brokenPipe(os.Stdout.Name())), true},
		{"a child's stdin", fmt.Errorf("send to worker: %w", brokenPipe("|1")), false},
		{"a database socket", fmt.Errorf("create schema: %w", serverGone), false},
		{"no error", nil, false},
	} {
		if tc.err != nil && !errors.Is(tc.err, syscall.EPIPE) {
			t.Fatalf("%s: %v is not a broken pipe", tc.what, tc.err)
		}
		if got := closedOutput(tc.err); got != tc.closed {
			t.Errorf("closedOutput(%s: %v) = %v, want %v", tc.what, tc.err, got, tc.closed)
		}
	}
}
