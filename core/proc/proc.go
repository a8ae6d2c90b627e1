// Package proc names the process that owns something the lab leaves on disk
// (a temporary directory, later a database schema), so a later run can tell
// whether its owner is gone and remove what a killed run left behind.
package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Owner identifies a running process: its pid and, where the system says,
// its start time, so a pid reused by another process is not mistaken for it.
type Owner struct {
	PID   int
	Start uint64 // clock ticks since boot (Linux /proc/<pid>/stat field 22); 0 when unknown
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
	state, start, err := stat(o.PID)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err == nil:
		return state != 'Z' && (o.Start == 0 || start == o.Start) // a zombie has exited
	}
	// No /proc (not Linux): ask the kernel whether the pid exists.
	err = syscall.Kill(o.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Running reports whether pid is a process that has not exited: it exists
// and is not a zombie waiting for its parent to reap it.
func Running(pid int) bool {
	state, _, err := stat(pid)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		// No /proc (not Linux): ask the kernel whether the pid exists.
		return syscall.Kill(pid, 0) == nil
	}
	return err == nil && state != 'Z'
}

// startTime reads a process's start time from /proc/<pid>/stat.
func startTime(pid int) (uint64, error) {
	_, start, err := stat(pid)
	return start, err
}

// stat reads a process's state (R, S, Z, ...) and start time from
// /proc/<pid>/stat.
func stat(pid int) (state byte, start uint64, err error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if _, statErr := os.Stat("/proc/self/stat"); statErr != nil {
			return 0, 0, fmt.Errorf("no /proc: %w", statErr) // not ErrNotExist of the pid: unknown
		}
		return 0, 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state); the start time is field 22.
	if len(fields) < 20 || fields[0] == "" {
		return 0, 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	start, err = strconv.ParseUint(fields[19], 10, 64)
	return fields[0][0], start, err
}
