// Command day16 is your Day 16 worker for outboxlab's grading protocol
// (docs/grade-protocol.md, version 1). It already speaks the protocol,
// claims with a lease and records with the owner check (Day 15); the TODOs
// in worker.go and main.go are Day 16: count the attempt at claim, gate the
// claim on NextAttemptUtc, back off, and dead-letter at MaxAttempts.
//
//	outboxlab grade session-16 -- go run .
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
	MaxAttempts      int   // the Day's MaxAttempts; each row carries its own
	BaseBackoffMS    int64 // the backoff after the first failure
	MaxBackoffMS     int64 // the cap on one backoff; 0: no cap
	LeaseMS          int64
	BatchSize        int
	BusyTimeoutMS    int
}

// maxSleepMS bounds a backoff that is not capped, so that doubling it never
// overflows: 30 days, far past the lab's one-day scenario clock.
const maxSleepMS = 30 * 24 * 3600 * 1000

// Backoff is the wait after the n-th failed attempt: base × 2^(n-1), capped
// at MaxBackoffMS when that is not 0.
func (c Config) Backoff(n int) int64 {
	// TODO(Day 16) #3: return BaseBackoffMS × 2^(n-1), capped at MaxBackoffMS
	// when that is not 0 (stop doubling at maxSleepMS so it cannot overflow).
	return 0
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
	if cfg.Role != "worker" || cfg.Day != "16" {
		return fmt.Errorf("this is the Day 16 worker: OUTBOXLAB_DAY %q, OUTBOXLAB_ROLE %q", cfg.Day, cfg.Role)
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
		MaxAttempts:   int(num("OUTBOXLAB_MAX_ATTEMPTS", 0)),
		BaseBackoffMS: num("OUTBOXLAB_BASE_BACKOFF_MS", 200),
		MaxBackoffMS:  num("OUTBOXLAB_MAX_BACKOFF_MS", 0),
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
