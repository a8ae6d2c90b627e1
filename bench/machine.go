package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/stat's counters (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// machineBusy is the CPU time every core of the machine has spent busy so
// far (user, nice, system, irq, softirq, steal: everything but idle and I/O
// wait), from /proc/stat: what a PostgreSQL drain costs the worker and the
// server together. It is 0 where /proc/stat cannot be read.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, f := range fields[1:] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0
		}
		if i != 3 && i != 4 && i < 8 { // idle, iowait; guest time is already in user
			busy += v
		}
	}
	return time.Duration(busy) * clockTick
}
