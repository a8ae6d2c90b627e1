//go:build unix

package proctree

import (
	"testing"

	"outboxlab/core/proc"
)

// macOS has no /proc: the tree asks the kernel about the group as a whole.
// The same code runs here, through the same interface, in place of /proc.
// There the killed children, orphaned, are reaped by launchd at once; here
// the test adopts and reaps them itself (reapOrphans), so the answer does
// not wait on how soon this machine's init reaps.
func TestKillWithoutProcAsksTheGroup(t *testing.T) {
	tree, pids := startFamily(t)
	reapOrphans(t, pids[1:])
	tree.sys.members = signalMembers
	if got := signalMembers(tree.sys.pgid); len(got) != 1 || got[0] != -tree.sys.pgid {
		t.Fatalf("signalMembers of a live group = %v, want [%d]", got, -tree.sys.pgid)
	}
	if err := tree.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if proc.Running(pid) {
			killLeft(pid)
			t.Errorf("process %d still runs after Kill returned", pid)
		}
	}
	if got := signalMembers(tree.sys.pgid); got != nil {
		t.Errorf("signalMembers of an ended group = %v, want none", got)
	}
}
