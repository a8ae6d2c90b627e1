//go:build unix

package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// watch starts a small shell that stops the server and removes its folder
// when this process is gone without calling Stop (killed, or a test timeout,
// which exits without cleanup). It has its own session, so a Ctrl-C that
// ends the tests does not end it, and no stdout, so go test does not wait
// for it. Without it the next Start's sweep would do the same, later.
func (s *Server) watch() {
	stop := "'" + filepath.Join(s.bin, "pg_ctl") + "' stop -D '" + filepath.Join(s.Dir, "data") +
		"' -m immediate -w -s"
	if s.runAsUser != "" {
		stop = "runuser -u " + s.runAsUser + " -- " + stop
	}
	script := "while kill -0 " + strconv.Itoa(os.Getpid()) + " 2>/dev/null; do sleep 1; done; " +
		"cd / && " + stop + "; rm -rf '" + s.Dir + "'"
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		s.watcher = cmd
	}
}
