package retry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/breaker"
	"outboxlab/core/changelog"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

// stormOptions are the pair's parameters. Both scenarios take all of them,
// because each report compares both designs on the same seed.
type stormOptions struct {
	scenarios.Declared
	after bool // this scenario's own design is the AFTER one

	Messages       int
	OutageStart    time.Duration
	Outage         time.Duration
	MaxAttempts    int
	BaseBackoff    time.Duration
	MaxBackoff     time.Duration
	FailuresToOpen int
	Cooldown       time.Duration
	Breaker        bool

	verbose bool // every message in the per-message table (--verbose)
}

// bindStorm declares the pair's flags. --max-backoff may not be below
// --base-backoff: its declared minimum is --base-backoff's default, and
// --base-backoff's maximum is --max-backoff's default (backoffCap).
func bindStorm(fs *pflag.FlagSet, after bool) *stormOptions {
	o := &stormOptions{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Messages, "messages", 30, 1, stormMaxMessages, "notifications in the outbox, NTF-001 onwards")
	f.Int(&o.MaxAttempts, "max-attempts", 6, 1, stormMaxAttempts, "retry budget: attempts before a message is dead-lettered")
	f.Int(&o.FailuresToOpen, "failures-to-open", 5, 1, 50, "AFTER: consecutive failures that open the breaker")
	f.Duration(&o.OutageStart, "outage-start", 2*time.Second, 0, maxOutageStart, "when the gateway goes down, after the run starts").
		Rule(func(v time.Duration) error {
			if v < 0 || v > maxOutageStart || v%time.Millisecond != 0 {
				return fmt.Errorf("--outage-start must be a whole number of milliseconds between 0s and %s, got %s", maxOutageStart, v)
			}
			return nil
		})
	f.Duration(&o.Outage, "outage", time.Minute, time.Second, time.Hour, "how long the gateway stays down")
	base := f.Duration(&o.BaseBackoff, "base-backoff", time.Second, time.Millisecond, 30*time.Second,
		"backoff after a message's first failure; doubles each attempt")
	ceiling := f.Duration(&o.MaxBackoff, "max-backoff", 30*time.Second, time.Second, time.Hour, "cap on any one backoff")
	backoffCap{"base-backoff", "max-backoff", &o.BaseBackoff, &o.MaxBackoff}.relate(base, ceiling, time.Millisecond, time.Hour, time.Millisecond, time.Hour)
	f.Duration(&o.Cooldown, "cooldown", 20*time.Second, time.Millisecond, time.Hour, "AFTER: how long the breaker stays open before a probe")
	f.Bool(&o.Breaker, "breaker", true, "AFTER: the consumer-wide circuit breaker (=false: none)")
	return o
}

// The pair's work bounds. One worker claims each message at most
// --max-attempts times, so a design makes at most 100 × 20 = 2000 claims, as
// many clock advances and as many breaker stops: both designs in about a
// second. The scenario time they span does not matter: nothing sleeps.
const (
	stormMaxMessages = 100
	stormMaxAttempts = 20
)

// maxOutageStart bounds --outage-start.
const maxOutageStart = 10 * time.Minute

// stormSendTime is how long one send takes; the consumer sends one at a time.
const stormSendTime = 200 * time.Millisecond

func (o *stormOptions) Validate() error { return o.CheckDeclared() }

// stormRun is one design driven to its end on its own database.
type stormRun struct {
	breaker     bool
	events      []worker.Event
	transitions []breaker.Transition
	stops       []event // the consumer standing still while the breaker is open
	gw          *gateway
	msgs        []outbox.Message
	tables      []outbox.Table
	ended       time.Time
	read        stormMetrics // what the run left, read back (see metrics)
}

func (o *stormOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	o.verbose = env.Verbose
	return o.pairReport().run(ctx, env, o.drive)
}

// drive seeds a fresh outbox and lets one worker drain it, one message per
// Step, each send taking stormSendTime; with a breaker, the consumer does not
// claim at all while the breaker is open.
func (o *stormOptions) drive(ctx context.Context, db dialect.Database, withBreaker bool) (*stormRun, error) {
	store, err := outbox.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	clk := clock.New()
	gw := newGateway(stormSendTime, 0)
	gw.downFrom = clk.Now().Add(o.OutageStart)
	gw.downUntil = gw.downFrom.Add(o.Outage)
	if err := o.seed(ctx, store, clk.Now()); err != nil {
		return nil, err
	}
	if err := changelog.Seeded(ctx, clk.Now()); err != nil {
		return nil, err
	}
	w := &worker.Worker{ID: "worker-1", Store: store, Clock: clk, Batch: 1,
		Policy: backoff.Policy{Backoff: backoff.Backoff{Base: o.BaseBackoff, Cap: o.MaxBackoff}, DeadLetter: true},
		Handler: worker.HandlerFunc(func(_ context.Context, c outbox.Claim, now time.Time) (worker.Outcome, error) {
			if s := gw.send("worker-1", c.Key, c.Attempt, now); !s.ok {
				return worker.Outcome{}, errors.New(s.err)
			}
			return worker.Outcome{Detail: "sent"}, nil
		})}
	withBreaker = withBreaker && o.Breaker
	run := &stormRun{breaker: withBreaker, gw: gw}
	var br *breaker.Breaker
	if withBreaker {
		br = breaker.New(o.FailuresToOpen, o.Cooldown)
	}
	limit := o.Messages*o.MaxAttempts*3 + 1000
	for step := 0; ; step++ {
		if step > limit {
			return nil, fmt.Errorf("the worker did not settle after %d steps", limit)
		}
		if br != nil && !br.Allows(clk.Now()) {
			run.stops = append(run.stops, event{at: clk.Now(), consumer: "worker-1",
				text: fmt.Sprintf("breaker open: the consumer claims nothing until %s", clock.Stamp(br.ReopensAt()))})
			clk.AdvanceTo(br.ReopensAt())
			continue
		}
		res, err := w.Step(ctx)
		if err != nil {
			return nil, err
		}
		run.events = append(run.events, res.Events...)
		if err := recordStorm(ctx, clk.Now(), res.Events); err != nil {
			return nil, err
		}
		if res.Idle {
			break
		}
		for _, e := range res.Events {
			if e.Kind == worker.Advanced {
				continue
			}
			answered := clk.Advance(stormSendTime)
			if br != nil {
				br.Record(e.Kind == worker.Processed, answered)
			}
		}
	}
	run.ended = clk.Now()
	if br != nil {
		run.transitions = br.Transitions()
	}
	if run.msgs, err = store.Messages(ctx); err != nil {
		return nil, err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return nil, err
	}
	run.read = o.metrics(run)
	return run, nil
}

func (o *stormOptions) seed(ctx context.Context, store *outbox.Store, at time.Time) error {
	return store.InTx(ctx, func(tx *sql.Tx) error {
		for i := 1; i <= o.Messages; i++ {
			if _, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: noteKey(i), Type: notificationType,
				MaxAttempts: o.MaxAttempts, CreatedAt: at}); err != nil {
				return err
			}
		}
		return nil
	})
}
