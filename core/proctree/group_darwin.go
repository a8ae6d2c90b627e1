package proctree

import "syscall"

// contain has no box to offer on macOS, and no parent-death signal: a lab
// killed outright leaves the tree running until it ends by itself (the
// worker's own calls to the lab then fail), and a process that leaves the
// group (setsid) is not followed.
func contain(*syscall.SysProcAttr) (box, error) { return nil, nil }

// groupMembers asks the kernel about the group as a whole: macOS has no
// /proc to list it by.
func groupMembers(pgid int) []int { return signalMembers(pgid) }

// contains: a process group, which setsid leaves.
func contains() bool { return false }
