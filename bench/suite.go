package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
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

// buildLab builds the lab from labDir into dir and returns the binary's path.
func buildLab(ctx context.Context, labDir, dir string) (string, error) {
	bin := filepath.Join(dir, "outboxlab")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = labDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the lab: %v\n%s", err, out)
	}
	return bin, nil
}

// runLab runs the lab binary with args and measures wall time and peak memory
// from the kernel's accounting of the finished process.
func runLab(ctx context.Context, bin, labDir string, args ...string) (suiteRun, error) {
	run := suiteRun{args: args}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = labDir
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	err := cmd.Run()
	run.wall = time.Since(start)
	if cmd.ProcessState == nil {
		return run, fmt.Errorf("run %v: %w", args, err)
	}
	run.exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.maxRSS = ru.Maxrss
	}
	return run, nil
}
