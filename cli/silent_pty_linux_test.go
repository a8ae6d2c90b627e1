//go:build linux

package cli

// A pseudo-terminal that never answers: what an editor's built-in shell, a
// CI log with a pseudo-terminal or a serial console is to the lab. The test
// holds the master side, records every byte the lab writes and types keys;
// it never replies to a query, so a lab that asks the terminal anything
// either waits for nothing or leaves the question in the recorded bytes.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"outboxlab/core/child"
)

type silentTerminal struct {
	t       *testing.T
	master  *os.File
	cmd     *exec.Cmd
	started time.Time
	mu      sync.Mutex
	written bytes.Buffer  // every byte the lab wrote to the terminal
	closed  chan struct{} // the lab and its children closed the terminal
	exited  chan struct{} // cmd.Wait returned
	waitErr error
}

// openPTY opens a new pseudo-terminal pair of cols×rows (Linux's /dev/ptmx).
func openPTY(cols, rows int) (master, tty *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var n uint32
	rc, err := master.SyscallConn()
	if err == nil {
		ctlErr := rc.Control(func(fd uintptr) {
			if err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err == nil {
				n, err = unix.IoctlGetUint32(int(fd), unix.TIOCGPTN)
			}
		})
		err = errors.Join(err, ctlErr)
	}
	if err == nil {
		tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	}
	if err == nil {
		err = unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	}
	if err != nil {
		master.Close()
		if tty != nil {
			tty.Close()
		}
		return nil, nil, fmt.Errorf("open a pseudo-terminal: %w", err)
	}
	return master, tty, nil
}

// startSilent runs the lab's command line (this test binary as cli.Main) in
// a new session whose controlling terminal is a silent pseudo-terminal of
// 80×24, TERM=xterm-256color, stdin, stdout and stderr all on it.
func startSilent(t *testing.T, args ...string) *silentTerminal {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	master, tty, err := openPTY(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(withoutEnv(os.Environ(), "COLUMNS", "LINES", "NO_COLOR", "TERM"),
		child.EnvVar+"=cli-main-for-tests", "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	s := &silentTerminal{t: t, master: master, cmd: cmd, closed: make(chan struct{}), exited: make(chan struct{})}
	s.started = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the lab holds the only copies now: EOF on the master when it is done
	go s.record()
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			cmd.Process.Kill()
			<-s.exited
		}
		master.Close()
	})
	return s
}

func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

// record keeps everything the lab writes, until the terminal is closed
// (Linux reports EIO on the master once no process holds the other side).
func (s *silentTerminal) record() {
	defer close(s.closed)
	buf := make([]byte, 4096)
	for {
		n, err := s.master.Read(buf)
		s.mu.Lock()
		s.written.Write(buf[:n])
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// output is every byte written so far.
func (s *silentTerminal) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written.String()
}

// typeKeys types keys as a user would: they reach the lab's standard input.
func (s *silentTerminal) typeKeys(keys string) {
	s.t.Helper()
	if _, err := s.master.WriteString(keys); err != nil {
		s.t.Fatalf("type %q: %v", keys, err)
	}
}

// patience bounds every wait: a guard against a hung test, not a measure of
// speed (a loaded machine may take long; a lab that waits for an answer
// never gets one).
const patience = 2 * time.Minute

// waitFor waits until the lab has written want (and returns everything
// written), or fails when it exits or patience runs out first.
func (s *silentTerminal) waitFor(want string) string {
	s.t.Helper()
	for deadline := time.Now().Add(patience); ; time.Sleep(20 * time.Millisecond) {
		out := s.output()
		if strings.Contains(out, want) {
			return out
		}
		select {
		case <-s.closed:
			s.t.Fatalf("the lab closed the terminal without writing %q; it wrote:\n%q", want, tail(out))
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("after %v the lab had not written %q; it wrote:\n%q", patience, want, tail(out))
		}
	}
}

// wait waits until the lab has exited and closed the terminal, and returns
// its exit code, everything it wrote and how long it ran.
func (s *silentTerminal) wait() (code int, written string, took time.Duration) {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(patience):
		s.t.Fatalf("the lab still runs after %v; it wrote:\n%q", patience, tail(s.output()))
	}
	took = time.Since(s.started)
	<-s.closed
	var ee *exec.ExitError
	switch {
	case errors.As(s.waitErr, &ee):
		code = ee.ExitCode()
	case s.waitErr != nil:
		s.t.Fatal(s.waitErr)
	}
	return code, s.output(), took
}

func tail(s string) string { return s[max(0, len(s)-1500):] }

// terminalQuery matches every request a program sends a terminal to get an
// answer back: OSC colour and palette queries (ESC ] 10 ; ? …, ESC ] 11 ; ?,
// ESC ] 4 ; n ; ?), device status and cursor position reports (ESC [ 5 n,
// ESC [ 6 n, ESC [ ? 6 n), device attributes (ESC [ c, ESC [ > c, ESC [ = c,
// with or without 0), mode reports (ESC [ ? 2026 $ p), the kitty keyboard
// query (ESC [ ? u), XTVERSION (ESC [ > q), window reports (ESC [ 14 t,
// ESC [ 16 t, ESC [ 18 t) and DCS requests (XTGETTCAP ESC P + q, DECRQSS
// ESC P $ q).
var terminalQuery = regexp.MustCompile(`\x1b\][0-9]+(;[0-9]+)*;\?|` +
	`\x1b\[\??[0-9]*n|\x1b\[[>=]?0?c|\x1b\[\??[0-9;]*\$p|\x1b\[\?u|\x1b\[>0?q|` +
	`\x1b\[1[468]t|\x1bP[+$]q`)

// queries lists the terminal queries in written, quoted.
func queries(written string) []string {
	var out []string
	for _, q := range terminalQuery.FindAllString(written, -1) {
		out = append(out, fmt.Sprintf("%q", q))
	}
	return out
}
