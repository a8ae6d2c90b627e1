//go:build unix

package child

import "time"

// orphanWatch calls die once getppid no longer answers parent: a process
// whose parent died is adopted by another (init, launchd, a subreaper). A
// parent of 1 is init itself: the lab died before the watch began.
func orphanWatch(parent int, getppid func() int, every time.Duration, die func()) {
	for parent != 1 && getppid() == parent {
		time.Sleep(every)
	}
	die()
}
