// Package proc names the process that owns something the lab leaves on disk
// (a temporary directory, later a database schema), so a later run can tell
// whether its owner is gone and remove what a killed run left behind.
package proc

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Owner identifies a running process: its pid and, where the system says,
// its start time, so a pid reused by another process is not mistaken for it.
type Owner struct {
	PID   int
	Start uint64 // start time: clock ticks since boot on Linux, µs since the epoch on macOS, 100 ns since 1601 on Windows; 0 when unknown
}

// Self is the calling process.
func Self() Owner {
	pid := os.Getpid()
	start, _ := startTime(pid)
	return Owner{PID: pid, Start: start}
}

// String renders o as ParseOwner reads it.
func (o Owner) String() string { return fmt.Sprintf("pid=%d start=%d", o.PID, o.Start) }

// ParseOwner reads what Owner.String wrote.
func ParseOwner(s string) (Owner, error) {
	var o Owner
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "pid=%d start=%d", &o.PID, &o.Start); err != nil || o.PID <= 0 {
		return Owner{}, fmt.Errorf("not an owner record: %q", s)
	}
	return o, nil
}

// Alive reports whether the process o names is still running. When the
// system cannot say, it answers true: removing a live run's files is worse
// than leaving a dead run's.
func (o Owner) Alive() bool {
	if o.PID == os.Getpid() {
		return true
	}
	st, err := inspect(o.PID)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err != nil:
		return true
	}
	return !st.exited && (o.Start == 0 || st.start == 0 || st.start == o.Start)
}

// Running reports whether pid is a process that has not exited: it exists
// and is not a zombie waiting for its parent to reap it. When the system
// cannot say, it answers true.
func Running(pid int) bool {
	st, err := inspect(pid)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err != nil:
		return true
	}
	return !st.exited
}

// startTime is a process's start time as this system counts it (0 when it
// does not say).
func startTime(pid int) (uint64, error) {
	st, err := inspect(pid)
	return st.start, err
}

// status is what the system says of one process. Each system's inspect
// fills it: Linux from /proc, macOS from sysctl, Windows from the process's
// handle. An inspect error wrapping os.ErrNotExist means no such process.
type status struct {
	exited bool   // it has exited (a zombie waiting to be reaped, or a handle to a dead process)
	start  uint64 // its start time in the system's own units; 0 when unknown
}
