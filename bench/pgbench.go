package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"outboxlab/internal/pgtest"
)

// pgbenchSeconds is how long each pgbench run lasts.
const pgbenchSeconds = 2

// pgbenchPath finds pgbench beside the server's binaries, or on PATH.
func pgbenchPath() (string, error) {
	for _, p := range []string{"/usr/lib/postgresql/15/bin/pgbench", "pgbench"} {
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("pgbench not found (in /usr/lib/postgresql/15/bin or on PATH)")
}

// pgbenchInit fills pgbench's tables (scale 1) in the server's postgres
// database, away from every run schema.
func pgbenchInit(ctx context.Context, server *pgtest.Server) error {
	bin, err := pgbenchPath()
	if err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, bin, "-i", "-q", "-s", "1", "-h", server.Dir, "-U", "postgres", "postgres").
		CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgbench -i: %v: %s", err, out)
	}
	return nil
}

var (
	pgbenchTPS       = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	pgbenchProcessed = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)
)

// pgbenchRun is the server's own ceiling as a contender: pgbench's built-in
// simple-update script (an UPDATE, a SELECT and an INSERT, one commit per
// transaction, as durable as every contender's) with workers clients for
// pgbenchSeconds. Its rate is pgbench's transactions/s.
func pgbenchRun(server *pgtest.Server) func(ctx context.Context, url string, n, workers int) (result, error) {
	return func(ctx context.Context, _ string, _, workers int) (result, error) {
		bin, err := pgbenchPath()
		if err != nil {
			return result{}, err
		}
		c := strconv.Itoa(workers)
		busy := machineBusy()
		out, err := exec.CommandContext(ctx, bin, "-n", "-b", "simple-update", "-c", c, "-j", c,
			"-T", strconv.Itoa(pgbenchSeconds), "-h", server.Dir, "-U", "postgres", "postgres").CombinedOutput()
		busy = machineBusy() - busy
		if err != nil {
			return result{}, fmt.Errorf("pgbench: %v: %s", err, out)
		}
		tps, processed := pgbenchTPS.FindSubmatch(out), pgbenchProcessed.FindSubmatch(out)
		if tps == nil || processed == nil {
			return result{}, fmt.Errorf("pgbench: no tps in its output: %s", out)
		}
		rate, _ := strconv.ParseFloat(string(tps[1]), 64)
		n, _ := strconv.Atoi(string(processed[1]))
		if rate <= 0 || n <= 0 {
			return result{}, fmt.Errorf("pgbench: %d transactions at %s tps", n, tps[1])
		}
		return result{n: n, drain: time.Duration(float64(n) / rate * float64(time.Second)), busy: busy}, nil
	}
}
