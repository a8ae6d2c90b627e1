package retry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	policy "outboxlab/core/retry"
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
drives one always-failing message through the real worker on a real SQLite
file: the waits in the table are the ones the worker wrote as NextAttemptUtc
after each failed attempt, and the message is dead-lettered when its attempts
run out. The second table counts how many waits fit in a time budget, the seed's
way (stopping at 1000, which it prints as "unlimited"): immediate retry never
uses up a time budget, a fixed interval spends it on pointless attempts, and a
cap keeps exponential backoff from thinning out without bound.`,
		Example: `  outboxlab backoff-schedules
  outboxlab backoff-schedules --attempts 12 --cap 10s    # the cap takes over sooner
  outboxlab backoff-schedules --budget 1m --fixed 500ms  # a shorter budget, a faster fixed interval`,
		Bind: func(fs *pflag.FlagSet) scenarios.Options { return bindSchedules(fs) },
	})
}

// schedulesOptions are the experiment's parameters; the defaults are the seed's.
type schedulesOptions struct {
	Base     time.Duration
	Cap      time.Duration
	Fixed    time.Duration
	Attempts int
	Budget   time.Duration
}

func bindSchedules(fs *pflag.FlagSet) *schedulesOptions {
	o := &schedulesOptions{}
	fs.DurationVar(&o.Base, "base", 500*time.Millisecond, "exponential: wait after the first failed attempt; doubles each attempt (whole ms)")
	fs.DurationVar(&o.Cap, "cap", 30*time.Second, "exponential + cap: upper bound on any wait (whole ms)")
	fs.DurationVar(&o.Fixed, "fixed", 2*time.Second, "fixed: the wait after every failed attempt (whole ms)")
	fs.IntVar(&o.Attempts, "attempts", 8, "failed attempts whose waits the first table shows")
	fs.DurationVar(&o.Budget, "budget", 5*time.Minute, "time budget the second table fits attempts into (whole ms)")
	return o
}

// fitLimit is where the seed's budget loop stops; it prints it as "unlimited".
const fitLimit = 1000

func (o *schedulesOptions) Validate() error {
	if o.Attempts < 1 || o.Attempts > 20 {
		return fmt.Errorf("--attempts must be between 1 and 20, got %d", o.Attempts)
	}
	if err := wholeMillis(
		millisFlag{"--base", o.Base, time.Millisecond, time.Hour},
		millisFlag{"--cap", o.Cap, time.Millisecond, 24 * time.Hour},
		millisFlag{"--fixed", o.Fixed, time.Millisecond, time.Hour},
		millisFlag{"--budget", o.Budget, time.Millisecond, 24 * time.Hour},
	); err != nil {
		return err
	}
	return capNotBelowBase("--cap", o.Cap, "--base", o.Base)
}

// schedule is one of the four backoff schedules, as the engine's Backoff.
type schedule struct {
	name    string
	key     string // the outbox message that measures it
	backoff policy.Backoff
}

func (o *schedulesOptions) schedules() []schedule {
	return []schedule{
		{"immediate", "SCHEDULE-immediate", policy.Backoff{}},
		{"fixed " + clockText(o.Fixed), "SCHEDULE-fixed", policy.Backoff{Base: o.Fixed, Cap: o.Fixed}},
		{"exponential", "SCHEDULE-exponential", policy.Backoff{Base: o.Base}},
		{"exponential + cap", "SCHEDULE-exponential-cap", policy.Backoff{Base: o.Base, Cap: o.Cap}},
	}
}

// measured is one schedule driven through the worker.
type measured struct {
	schedule
	waits  []time.Duration // NextAttemptUtc − claim time after each failed attempt
	claims []time.Time     // when each attempt was claimed
	events []worker.Event
	fit    int // waits that fit in the budget (the seed's loop)
	spent  time.Duration
}

func (o *schedulesOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, err := outbox.Open(ctx, env.DBPath)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var runs []measured
	for _, s := range o.schedules() {
		m, err := o.drive(ctx, store, s)
		if err != nil {
			return nil, fmt.Errorf("drive the %s schedule: %w", s.name, err)
		}
		runs = append(runs, m)
	}
	msgs, err := store.Messages(ctx)
	if err != nil {
		return nil, err
	}
	tables, err := store.Tables(ctx)
	if err != nil {
		return nil, err
	}
	return o.render(runs, msgs, tables), nil
}

// errFails is what the notification gateway answers every attempt here.
var errFails = errors.New("notification gateway unavailable (503)")

// drive enqueues one message for s and lets a worker with s's backoff fail it
// until its attempts run out: Attempts failures with a wait, then the last.
func (o *schedulesOptions) drive(ctx context.Context, store *outbox.Store, s schedule) (measured, error) {
	clk := clock.New()
	if _, err := store.Enqueue(ctx, outbox.NewMessage{Key: s.key, Type: notificationType,
		MaxAttempts: o.Attempts + 1, CreatedAt: clk.Now()}); err != nil {
		return measured{}, err
	}
	w := &worker.Worker{ID: "worker-1", Store: store, Clock: clk,
		Policy: policy.Policy{Backoff: s.backoff, DeadLetter: true},
		Handler: worker.HandlerFunc(func(context.Context, outbox.Claim, time.Time) (worker.Outcome, error) {
			return worker.Outcome{}, errFails
		})}
	m := measured{schedule: s}
	for step := 0; ; step++ {
		if step > 3*o.Attempts+10 {
			return m, fmt.Errorf("the worker did not settle after %d steps", step)
		}
		res, err := w.Step(ctx)
		if err != nil {
			return m, err
		}
		for _, e := range res.Events {
			m.events = append(m.events, e)
			if e.Kind == worker.Advanced {
				continue
			}
			m.claims = append(m.claims, e.At)
			if e.Kind == worker.Retrying {
				wait := time.Duration(0)
				if !e.NextAttempt.IsZero() {
					wait = e.NextAttempt.Sub(e.At)
				}
				m.waits = append(m.waits, wait)
			}
		}
		if res.Idle {
			break
		}
	}
	m.fit, m.spent = s.backoff.Fit(o.Budget, fitLimit)
	return m, nil
}
