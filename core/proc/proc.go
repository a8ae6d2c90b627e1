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
	start, err := startTime(o.PID)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err == nil:
		return o.Start == 0 || start == o.Start
	}
	// No /proc (not Linux): ask the kernel whether the pid exists.
	err = syscall.Kill(o.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// startTime reads a process's start time from /proc/<pid>/stat.
func startTime(pid int) (uint64, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if _, statErr := os.Stat("/proc/self/stat"); statErr != nil {
			return 0, fmt.Errorf("no /proc: %w", statErr) // not ErrNotExist of the pid: unknown
		}
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state); the start time is field 22.
	if len(fields) < 20 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	return strconv.ParseUint(fields[19], 10, 64)
}
