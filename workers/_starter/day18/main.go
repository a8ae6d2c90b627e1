// Command day18 is your Day 18 worker for outboxlab's grading protocol
// (docs/grade-protocol.md, version 1, section 7.5): a hosted worker. It
// already claims, asks the provider, runs the handler and records behind the
// owner and token check (Days 15 and 16); the TODOs in hosted.go are Day 18:
// renew the lease while the handler runs, guarded, up to a cap; release what
// it holds at a drain; wait for new work without missing a lease's end.
//
//	outboxlab grade session-18 -- go run .
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

	// Day 18's hosted worker: renew a lease RenewMarginMS before it ends,
	// never past RenewCapMS from the claim; PollMS is the busy-poll floor.
	RenewMarginMS, RenewCapMS, PollMS int64
}

// maxSleepMS bounds a backoff that is not capped, so that doubling it never
// overflows: 30 days, far past the lab's one-day scenario clock.
const maxSleepMS = 30 * 24 * 3600 * 1000

// Backoff is the wait after the n-th failed attempt: base × 2^(n-1), capped
// at MaxBackoffMS when that is not 0.
func (c Config) Backoff(n int) int64 {
	d := c.BaseBackoffMS
	for i := 1; i < n && d < maxSleepMS; i++ {
		d *= 2
	}
	if c.MaxBackoffMS > 0 && d > c.MaxBackoffMS {
		d = c.MaxBackoffMS
	}
	return d
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
	if cfg.Role != "worker" || cfg.Day != "18" {
		return fmt.Errorf("this is the Day 18 worker: OUTBOXLAB_DAY %q, OUTBOXLAB_ROLE %q", cfg.Day, cfg.Role)
	}
	return (&Hosted{Worker{cfg: cfg, lab: lab, db: db}}).Run(ctx)
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
		RenewMarginMS: num("OUTBOXLAB_RENEW_MARGIN_MS", 10000),
		RenewCapMS:    num("OUTBOXLAB_RENEW_CAP_MS", 120000),
		PollMS:        num("OUTBOXLAB_POLL_MS", 1000),
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
