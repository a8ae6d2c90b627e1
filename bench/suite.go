package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// suiteRun is one run of the lab binary.
type suiteRun struct {
	args   []string
	wall   time.Duration
	maxRSS int64 // kilobytes: the process's and its waited-for children's peak
	exit   int
}

// runLab runs the lab binary with args and measures its wall time and peak
// memory. The binary is started by a fresh copy of this program
// (measureChild), not by this process: on Linux a child forked from a
// process records that process's resident memory as its own peak until it
// execs (ru_maxrss keeps the high-water mark of the memory it shared), so a
// lab started from this bench, which holds River and a million-row table,
// would report the bench's peak instead of its own.
func runLab(ctx context.Context, bin, labDir string, args ...string) (suiteRun, error) {
	run := suiteRun{args: args}
	self, err := os.Executable()
	if err != nil {
		return run, err
	}
	cmd := exec.CommandContext(ctx, self, append([]string{rusageOf, bin}, args...)...)
	cmd.Dir = labDir
	cmd.Stderr = io.Discard
	out, err := cmd.Output()
	if err != nil {
		return run, fmt.Errorf("run %v: %w", args, err)
	}
	var wallNS int64
	if _, err := fmt.Sscan(string(out), &wallNS, &run.maxRSS, &run.exit); err != nil {
		return run, fmt.Errorf("run %v: read its measurement %q: %w", args, out, err)
	}
	run.wall = time.Duration(wallNS)
	return run, nil
}

// rusageOf is the argument that makes this program run a command and print
// its wall time (ns), peak RSS (KiB) and exit code, for runLab.
const rusageOf = "-rusage-of"

// measureChild runs args[0] with the rest of args, its output discarded, and
// prints what runLab reads. It returns 0 when it could run the command.
func measureChild(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var maxRSS int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxRSS = ru.Maxrss
	}
	fmt.Println(wall.Nanoseconds(), maxRSS, cmd.ProcessState.ExitCode())
	return 0
}
