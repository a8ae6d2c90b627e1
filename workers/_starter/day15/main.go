// Command day15 is your Day 15 worker for outboxlab's grading protocol
// (docs/grade-protocol.md, version 1). It already speaks the protocol, claims
// the oldest Pending messages, asks the provider and records the answer. The
// TODOs in worker.go are Day 15: a lease that runs out, a fencing token, and
// the owner and token check on every record.
//
//	outboxlab grade session-15 -- go run .
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
	LeaseMS          int64
	BatchSize        int
	BusyTimeoutMS    int
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
	lab := newLab(cfg.LabURL, cfg.Token)
	if err := lab.Hello(); err != nil {
		return err
	}
	db, err := openDB(ctx, cfg.DBKind, cfg.Database, cfg.BusyTimeoutMS)
	if err != nil {
		return err
	}
	if cfg.Role != "worker" || cfg.Day != "15" {
		return fmt.Errorf("this is the Day 15 worker: OUTBOXLAB_DAY %q, OUTBOXLAB_ROLE %q", cfg.Day, cfg.Role)
	}
	return (&Worker{cfg: cfg, lab: lab, db: db}).Run(ctx)
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
		Day:           os.Getenv("OUTBOXLAB_DAY"),
		Role:          os.Getenv("OUTBOXLAB_ROLE"),
		LabURL:        os.Getenv("OUTBOXLAB_LAB_URL"),
		Token:         os.Getenv("OUTBOXLAB_TOKEN"),
		WorkerID:      os.Getenv("OUTBOXLAB_WORKER_ID"),
		DBKind:        os.Getenv("OUTBOXLAB_DB_KIND"),
		Database:      os.Getenv("OUTBOXLAB_DATABASE"),
		LeaseMS:       num("OUTBOXLAB_LEASE_MS", 30000),
		BatchSize:     int(num("OUTBOXLAB_BATCH_SIZE", 10)),
		BusyTimeoutMS: int(num("OUTBOXLAB_BUSY_TIMEOUT_MS", 5000)),
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
	if c.BatchSize < 1 {
		errs = append(errs, fmt.Errorf("OUTBOXLAB_BATCH_SIZE must be at least 1"))
	}
	if len(errs) > 0 {
		return c, errs[0]
	}
	return c, nil
}
