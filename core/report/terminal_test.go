//go:build linux

package report

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal and returns its follower side: a real
// terminal, as a student's stderr is.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	leader, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { leader.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, leader.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, leader.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("pty number: %v", e)
	}
	follower, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pty: %v", err)
	}
	t.Cleanup(func() { follower.Close() })
	return follower
}

func TestRedrawableOnlyOnASmartTerminal(t *testing.T) {
	tty := openPTY(t)
	file, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		what string
		w    io.Writer
		term string
		want bool
	}{
		{"a terminal", tty, "xterm-256color", true},
		{"a terminal, TERM unset", tty, "", true},
		{"a dumb terminal", tty, "dumb", false},
		{"a file", file, "xterm", false},
		{"a buffer", &bytes.Buffer{}, "xterm", false},
	} {
		t.Setenv("TERM", c.term)
		if got := Redrawable(c.w); got != c.want {
			t.Errorf("Redrawable(%s, TERM=%q) = %v, want %v", c.what, c.term, got, c.want)
		}
	}
}
