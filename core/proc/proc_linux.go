package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// inspect reads a process's state and start time from /proc/<pid>/stat.
func inspect(pid int) (status, error) {
	state, start, err := stat(pid)
	if err != nil {
		return status{}, err
	}
	return status{exited: state == 'Z' || state == 'X', start: start}, nil
}

// stat reads a process's state (R, S, Z, ...) and start time (clock ticks
// since boot, field 22) from /proc/<pid>/stat.
func stat(pid int) (state byte, start uint64, err error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if _, statErr := os.Stat("/proc/self/stat"); statErr != nil {
			return 0, 0, fmt.Errorf("no /proc: %w", statErr) // not ErrNotExist of the pid: unknown
		}
		return 0, 0, err
	}
	return parseStat(string(raw))
}

// parseStat reads the state and start time from the text of a
// /proc/<pid>/stat file.
func parseStat(s string) (state byte, start uint64, err error) {
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("unreadable /proc stat %q", s)
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state); the start time is field 22.
	if len(fields) < 20 || fields[0] == "" {
		return 0, 0, fmt.Errorf("short /proc stat %q", s)
	}
	start, err = strconv.ParseUint(fields[19], 10, 64)
	return fields[0][0], start, err
}
