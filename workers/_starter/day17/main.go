// Command day17 is your Day 17 redrive for outboxlab's grading protocol
// (docs/grade-protocol.md, version 1, section 7.3). It already speaks the
// protocol and does what someone without a redrive procedure does: one
// UPDATE puts every dead letter back with its counters wiped, and the lab's
// worker takes them again. The TODOs in main.go and redrive.go make it an
// audited redrive.
//
//	outboxlab grade session-17 -- go run .
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
)

// Config is what the lab tells a worker through its environment (section 2).
type Config struct {
	Day, Role        string
	LabURL, Token    string
	WorkerID         string
	DBKind, Database string
	BusyTimeoutMS    int

	// Day 17's redrive.
	Approver, Reason  string
	RedriveBatch      int
	RedriveIntervalMS int64
	RedriveAttempts   int
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if v := os.Getenv("OUTBOXLAB_PROTOCOL"); v != "1" {
		return fmt.Errorf("OUTBOXLAB_PROTOCOL is %q: this worker speaks protocol 1 only", v)
	}
	cfg, err := readConfig()
	if err != nil {
		return err
	}
	// TODO(Day 17) #1: refuse to run without OUTBOXLAB_APPROVER and
	// OUTBOXLAB_REASON (cfg.Approver, cfg.Reason): return an error before
	// any lab call, touching nothing.
	lab := newLab(cfg.LabURL, cfg.Token)
	if err := lab.Hello(); err != nil {
		return err
	}
	db, err := openDB(ctx, cfg.DBKind, cfg.Database, cfg.BusyTimeoutMS)
	if err != nil {
		return err
	}
	if cfg.Role != "redrive" || cfg.Day != "17" {
		return fmt.Errorf("this is the Day 17 redrive: OUTBOXLAB_DAY %q, OUTBOXLAB_ROLE %q", cfg.Day, cfg.Role)
	}
	return (&Redrive{cfg: cfg, lab: lab, db: db}).Run(ctx)
}

// readConfig reads section 2's environment.
func readConfig() (Config, error) {
	var errs []error
	num := func(name string, def int64) int64 {
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not a number", name, v))
		}
		return n
	}
	c := Config{
		Day:               os.Getenv("OUTBOXLAB_DAY"),
		Role:              os.Getenv("OUTBOXLAB_ROLE"),
		LabURL:            os.Getenv("OUTBOXLAB_LAB_URL"),
		Token:             os.Getenv("OUTBOXLAB_TOKEN"),
		WorkerID:          os.Getenv("OUTBOXLAB_WORKER_ID"),
		DBKind:            os.Getenv("OUTBOXLAB_DB_KIND"),
		Database:          os.Getenv("OUTBOXLAB_DATABASE"),
		BusyTimeoutMS:     int(num("OUTBOXLAB_BUSY_TIMEOUT_MS", 5000)),
		Approver:          os.Getenv("OUTBOXLAB_APPROVER"),
		Reason:            os.Getenv("OUTBOXLAB_REASON"),
		RedriveBatch:      int(num("OUTBOXLAB_REDRIVE_BATCH", 1)),
		RedriveIntervalMS: num("OUTBOXLAB_REDRIVE_INTERVAL_MS", 1000),
		RedriveAttempts:   int(num("OUTBOXLAB_REDRIVE_ATTEMPTS", 1)),
	}
	if c.Role == "" {
		c.Role = "worker"
	}
	for _, v := range [][2]string{{"OUTBOXLAB_LAB_URL", c.LabURL}, {"OUTBOXLAB_TOKEN", c.Token},
		{"OUTBOXLAB_WORKER_ID", c.WorkerID}, {"OUTBOXLAB_DATABASE", c.Database}} {
		if v[1] == "" {
			errs = append(errs, fmt.Errorf("%s is not set", v[0]))
		}
	}
	if c.RedriveBatch < 1 {
		errs = append(errs, fmt.Errorf("OUTBOXLAB_REDRIVE_BATCH must be at least 1"))
	}
	if len(errs) > 0 {
		return c, errs[0]
	}
	return c, nil
}
