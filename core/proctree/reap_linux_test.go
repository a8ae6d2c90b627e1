package proctree

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// reapOrphans makes the test process adopt the orphans of its descendants
// (a child subreaper) and reaps pids once they end, as launchd does on
// macOS; the test binary is otherwise a subreaper of nothing.
func reapOrphans(t *testing.T, pids []int) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("become a child subreaper: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, pid := range pids {
			// ECHILD until the pid's parent dies and the pid is ours.
			var ws unix.WaitStatus
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
				_, err := unix.Wait4(pid, &ws, 0, nil)
				if err == nil || (err != unix.EINTR && err != unix.ECHILD) {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	}()
	t.Cleanup(func() {
		<-done
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	})
}
