package retry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

const backoffSchedules = "backoff-schedules"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    backoffSchedules,
		Family:  "retry",
		Kind:    report.Experiment,
		Summary: "Immediate, fixed, exponential and capped exponential backoff: waits per attempt, totals, and what fits in a retry budget",
		Long: `The course's backoff experiment, run on the outbox. Each of the four schedules
drives one always-failing message through the real worker on a real
database (SQLite, or PostgreSQL with --database): the waits in the table are the ones the worker wrote as NextAttemptUtc
after each failed attempt, and the message is dead-lettered when its attempts
run out. The second table counts how many waits fit in a time budget, the course's
way (stopping at 1000, which it prints as "unlimited"): immediate retry never
uses up a time budget, a fixed interval spends it on pointless attempts, and a
cap keeps exponential backoff from thinning out without bound.`,
		Example: `  outboxlab backoff-schedules
  outboxlab backoff-schedules --attempts 12 --cap 10s    # the cap takes over sooner
  outboxlab backoff-schedules --budget 1m --fixed 500ms  # a shorter budget, a faster fixed interval`,
		// A budget that holds more than the course's 1000 fixed waits: the
		// loop stops at its limit and the fixed interval does not fill it.
		FailsWith: []string{"--budget", "1h"},
		// A cap above every wait: the cap never bites (a budget shorter than
		// the fixed interval leaves that check unexercised too: --budget 1s).
		NotExercisedWith: []string{"--cap", "2m"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindSchedules(fs) },
	})
}

// schedulesOptions are the experiment's parameters; the defaults are the course's.
type schedulesOptions struct {
	scenarios.Declared
	Base     time.Duration
	Cap      time.Duration
	Fixed    time.Duration
	Attempts int
	Budget   time.Duration
}

// bindSchedules declares the flags. --cap may be below --base: the course's
// formula, Math.min(CAP, BASE × 2^(n-1)), then waits the cap every time.
func bindSchedules(fs *pflag.FlagSet) *schedulesOptions {
	o := &schedulesOptions{}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Attempts, "attempts", 8, 1, 20, "failed attempts whose waits the first table shows")
	f.Duration(&o.Base, "base", 500*time.Millisecond, time.Millisecond, time.Hour,
		"exponential: wait after the first failed attempt; doubles each attempt (whole ms)")
	f.Duration(&o.Cap, "cap", 30*time.Second, time.Millisecond, 24*time.Hour,
		"exponential + cap: upper bound on any wait, even below --base (whole ms)")
	f.Duration(&o.Fixed, "fixed", 2*time.Second, time.Millisecond, time.Hour, "fixed: the wait after every failed attempt (whole ms)")
	f.Duration(&o.Budget, "budget", 5*time.Minute, time.Millisecond, 24*time.Hour, "time budget the second table fits attempts into (whole ms)")
	return o
}

// fitLimit is where the course's budget loop stops; it prints it as "unlimited".
const fitLimit = 1000

// Validate bounds the run: four messages of at most 21 attempts each through
// the worker, and four budget loops of at most fitLimit steps, whatever the
// durations; the longest wait, 1 h × 2^19, is some 60 years of scenario time,
// well inside time.Time and time.Duration.
func (o *schedulesOptions) Validate() error { return o.CheckDeclared() }

// schedule is one of the four backoff schedules, as the engine's Backoff.
type schedule struct {
	name    string
	key     string // the outbox message that measures it
	metric  string // its name in JSON metric keys and metric files: total_ms_exponential_cap
	backoff backoff.Backoff
	seed    func(n int) int64 // the course's own formula for the wait after attempt n, in ms
}

func (o *schedulesOptions) schedules() []schedule {
	base, ceiling, fixed := o.Base.Milliseconds(), o.Cap.Milliseconds(), o.Fixed.Milliseconds()
	return []schedule{
		{"immediate", "SCHEDULE-immediate", "immediate", backoff.Backoff{}, func(int) int64 { return 0 }},
		{"fixed " + clockText(o.Fixed), "SCHEDULE-fixed", "fixed", backoff.Backoff{Base: o.Fixed, Cap: o.Fixed},
			func(int) int64 { return fixed }},
		{"exponential", "SCHEDULE-exponential", "exponential", backoff.Backoff{Base: o.Base},
			func(n int) int64 { return doubled(base, n) }},
		{"exponential + cap", "SCHEDULE-exponential-cap", "exponential_cap", backoff.Backoff{Base: o.Base, Cap: o.Cap},
			func(n int) int64 { return min(ceiling, doubled(base, n)) }},
	}
}

// doubled is base × 2^(n-1) in milliseconds, saturating at 2^62 ms (some 146
// million years) instead of overflowing.
func doubled(base int64, n int) int64 {
	d := base
	for i := 1; i < n && d < 1<<62; i++ {
		d *= 2
	}
	return min(d, 1<<62)
}

// seedFit is the course's budget loop over the course's formula, written apart
// from the engine's Backoff.Fit so that a check can hold the table to it:
// take the next wait while the total stays within the budget, stop at limit.
func seedFit(delay func(n int) int64, budget int64, limit int) (attempts int, elapsed int64) {
	for attempts < limit {
		next := delay(attempts + 1)
		if elapsed+next > budget { // both below 2^62: no overflow
			break
		}
		attempts++
		elapsed += next
	}
	return attempts, elapsed
}

// measured is one schedule driven through the worker.
type measured struct {
	schedule
	waits  []time.Duration // NextAttemptUtc as the row holds it after each failed attempt, minus the call's time
	claims []time.Time     // when the gateway was called: the handler's ledger
	fit    int             // waits that fit in the budget: the engine's Backoff.Fit, the table's metric
	spent  time.Duration
}

func (o *schedulesOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, err := outbox.Open(ctx, env.Database)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	runs, err := o.measure(ctx, store)
	if err != nil {
		return nil, err
	}
	msgs, err := store.Messages(ctx)
	if err != nil {
		return nil, err
	}
	tables, err := store.Tables(ctx)
	if err != nil {
		return nil, err
	}
	return o.render(runs, msgs, tables, env.Verbose), nil
}

// measure drives every schedule's message through the worker on store.
func (o *schedulesOptions) measure(ctx context.Context, store *outbox.Store) ([]measured, error) {
	var runs []measured
	for _, s := range o.schedules() {
		m, err := o.drive(ctx, store, s)
		if err != nil {
			return nil, fmt.Errorf("drive the %s schedule: %w", s.name, err)
		}
		runs = append(runs, m)
	}
	return runs, nil
}

// errFails is what the notification gateway answers every attempt here.
var errFails = errors.New("notification gateway unavailable (503)")

// drive enqueues one message for s and lets a worker with s's backoff fail it
// until its attempts run out: Attempts failures with a wait, then the last.
// The handler keeps a ledger of its calls; after each attempt the message's
// row is read back, and the wait is the NextAttemptUtc the worker persisted
// minus the time of the call (none when the row is no longer Pending).
func (o *schedulesOptions) drive(ctx context.Context, store *outbox.Store, s schedule) (measured, error) {
	clk := clock.New()
	if _, err := store.Enqueue(ctx, outbox.NewMessage{Key: s.key, Type: notificationType,
		MaxAttempts: o.Attempts + 1, CreatedAt: clk.Now()}); err != nil {
		return measured{}, err
	}
	m := measured{schedule: s}
	w := &worker.Worker{ID: "worker-1", Store: store, Clock: clk,
		Policy: backoff.Policy{Backoff: s.backoff, DeadLetter: true},
		Handler: worker.HandlerFunc(func(_ context.Context, _ outbox.Claim, now time.Time) (worker.Outcome, error) {
			m.claims = append(m.claims, now)
			return worker.Outcome{}, errFails
		})}
	for step := 0; ; step++ {
		if step > 3*o.Attempts+10 {
			return m, fmt.Errorf("the worker did not settle after %d steps", step)
		}
		calls := len(m.claims)
		res, err := w.Step(ctx)
		if err != nil {
			return m, err
		}
		if res.Idle {
			break
		}
		if len(m.claims) == calls {
			continue // the clock moved to the next due time
		}
		row, err := messageRow(ctx, store, s.key)
		if err != nil {
			return m, err
		}
		if row.Status == outbox.Pending {
			wait := time.Duration(0)
			if !row.NextAttemptAt.IsZero() {
				wait = row.NextAttemptAt.Sub(m.claims[len(m.claims)-1])
			}
			m.waits = append(m.waits, wait)
		}
	}
	m.fit, m.spent = s.backoff.Fit(o.Budget, fitLimit)
	return m, nil
}

// messageRow reads the outbox row of key as it is stored now.
func messageRow(ctx context.Context, store *outbox.Store, key string) (outbox.Message, error) {
	msgs, err := store.Messages(ctx)
	if err != nil {
		return outbox.Message{}, err
	}
	return messageByKey(msgs, key), nil
}
