package proctree

import "testing"

// reapOrphans has nothing to do on macOS: launchd reaps orphans at once.
func reapOrphans(*testing.T, []int) {}
