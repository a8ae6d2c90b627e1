// Command wrong is the reference worker (workers/reference/go) with one
// deliberate mistake chosen by -bug NAME (bugs.go lists them): the grader
// must fail each with the check that names it. Every mistake is an
// if bug("name") next to the line it replaces; without -bug it is the
// reference.
//
//	outboxlab grade session-16 -- ./wrong -bug no-max-attempts
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

	// Day 18's hosted worker (hosted.go).
	RenewMarginMS, RenewCapMS, PollMS int64

	// Day 17's redrive.
	Approver, Reason  string
	RedriveBatch      int
	RedriveIntervalMS int64
	RedriveAttempts   int
}

// maxSleepMS bounds a backoff that is not capped, so that doubling it never
// overflows: 30 days, far past the lab's one-day scenario clock.
const maxSleepMS = 30 * 24 * 3600 * 1000

// Backoff is the wait after the n-th failed attempt: base × 2^(n-1), capped
// at MaxBackoffMS when that is not 0.
func (c Config) Backoff(n int) int64 {
	d := c.BaseBackoffMS
	if bug("backoff-not-doubled") {
		return d
	}
	for i := 1; i < n && d < maxSleepMS; i++ {
		d *= 2
	}
	if c.MaxBackoffMS > 0 && d > c.MaxBackoffMS {
		d = c.MaxBackoffMS
	}
	return d
}

func main() {
	chooseBug()
	if bug("exits-at-once") {
		os.Exit(0)
	}
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
	if cfg.Role == "redrive" && !bug("redrive-unapproved") && (cfg.Approver == "" || cfg.Reason == "") {
		// An unapproved redrive touches nothing, not even the lab.
		return fmt.Errorf("refusing to redrive: OUTBOXLAB_APPROVER and OUTBOXLAB_REASON are both required")
	}
	lab := newLab(cfg.LabURL, cfg.Token)
	if bug("never-calls-lab") {
		return settleWithoutLab(ctx, cfg)
	}
	if err := lab.Hello(); err != nil {
		return err
	}
	if bug("hangs") {
		select {}
	}
	db, err := openDB(ctx, cfg.DBKind, cfg.Database, cfg.BusyTimeoutMS)
	if err != nil {
		return err
	}
	switch {
	case cfg.Role == "redrive":
		return (&Redrive{cfg: cfg, lab: lab, db: db}).Run(ctx)
	case cfg.Role == "worker":
		// Days 15, 16 and poison-counter share one loop: a lease and an owner
		// check for Day 15, bounded retries for Day 16, the count at delivery
		// for poison-counter.
		switch cfg.Day {
		case "15", "16", "poison-counter":
			return (&Worker{cfg: cfg, lab: lab, db: db}).Run(ctx)
		case "18":
			return (&Hosted{Worker{cfg: cfg, lab: lab, db: db}}).Run(ctx)
		}
		return fmt.Errorf("OUTBOXLAB_DAY %q: this worker knows 15, 16, 18 and poison-counter", cfg.Day)
	}
	return fmt.Errorf("OUTBOXLAB_ROLE %q: want worker or redrive", cfg.Role)
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
		MaxAttempts:       int(num("OUTBOXLAB_MAX_ATTEMPTS", 0)),
		BaseBackoffMS:     num("OUTBOXLAB_BASE_BACKOFF_MS", 200),
		MaxBackoffMS:      num("OUTBOXLAB_MAX_BACKOFF_MS", 0),
		LeaseMS:           num("OUTBOXLAB_LEASE_MS", 30000),
		BatchSize:         int(num("OUTBOXLAB_BATCH_SIZE", 10)),
		BusyTimeoutMS:     int(num("OUTBOXLAB_BUSY_TIMEOUT_MS", 5000)),
		Approver:          os.Getenv("OUTBOXLAB_APPROVER"),
		Reason:            os.Getenv("OUTBOXLAB_REASON"),
		RedriveBatch:      int(num("OUTBOXLAB_REDRIVE_BATCH", 1)),
		RedriveIntervalMS: num("OUTBOXLAB_REDRIVE_INTERVAL_MS", 1000),
		RedriveAttempts:   int(num("OUTBOXLAB_REDRIVE_ATTEMPTS", 1)),
		RenewMarginMS:     num("OUTBOXLAB_RENEW_MARGIN_MS", 10000),
		RenewCapMS:        num("OUTBOXLAB_RENEW_CAP_MS", 120000),
		PollMS:            num("OUTBOXLAB_POLL_MS", 1000),
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
	if c.BatchSize < 1 || c.RedriveBatch < 1 {
		errs = append(errs, fmt.Errorf("OUTBOXLAB_BATCH_SIZE and OUTBOXLAB_REDRIVE_BATCH must be at least 1"))
	}
	if len(errs) > 0 {
		return c, errs[0]
	}
	return c, nil
}
