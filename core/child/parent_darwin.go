package child

import (
	"os"
	"os/exec"
	"time"

	"outboxlab/core/proctree"
)

// macOS has no parent-death signal: the child watches its parent instead
// (watchParent), so a lab that dies, even by SIGKILL, leaves no child
// draining a database nobody reads.

// parentPoll is how often a child looks at its parent: the longest it
// outlives a lab that died.
const parentPoll = 100 * time.Millisecond

// dieWithParent has nothing to set on the command.
func dieWithParent(*exec.Cmd) {}

// adopt has nothing to do once the child runs: the child watches.
func adopt(*exec.Cmd) error { return nil }

// watchParent kills the calling child process once its parent is gone.
func watchParent() {
	go orphanWatch(os.Getppid(), os.Getppid, parentPoll, proctree.KillSelf)
}
