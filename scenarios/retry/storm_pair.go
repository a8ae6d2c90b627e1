package retry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/breaker"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

// stormOptions are the pair's parameters. Both scenarios take all of them,
// because each report compares both designs on the same seed.
type stormOptions struct {
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

func bindStorm(fs *pflag.FlagSet, after bool) *stormOptions {
	o := &stormOptions{after: after}
	fs.IntVar(&o.Messages, "messages", 30, "notifications in the outbox, NTF-001 onwards")
	fs.DurationVar(&o.OutageStart, "outage-start", 2*time.Second, "when the gateway goes down, after the run starts")
	fs.DurationVar(&o.Outage, "outage", time.Minute, "how long the gateway stays down")
	fs.IntVar(&o.MaxAttempts, "max-attempts", 6, "retry budget: attempts before a message is dead-lettered")
	fs.DurationVar(&o.BaseBackoff, "base-backoff", time.Second, "backoff after a message's first failure; doubles each attempt")
	fs.DurationVar(&o.MaxBackoff, "max-backoff", 30*time.Second, "cap on any one backoff")
	fs.IntVar(&o.FailuresToOpen, "failures-to-open", 5, "AFTER: consecutive failures that open the breaker")
	fs.DurationVar(&o.Cooldown, "cooldown", 20*time.Second, "AFTER: how long the breaker stays open before a probe")
	fs.BoolVar(&o.Breaker, "breaker", true, "AFTER: the consumer-wide circuit breaker (=false: none)")
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

// stormLimits are the pair's flag limits. --max-backoff may not be below
// --base-backoff: its minimum is --base-backoff's default, and
// --base-backoff's maximum is --max-backoff's default.
var stormLimits = []scenarios.Limit{
	{Flag: "messages", Min: "1", Max: strconv.Itoa(stormMaxMessages)},
	{Flag: "outage-start", Min: "0s", Max: "10m"},
	{Flag: "outage", Min: "1s", Max: "1h"},
	{Flag: "max-attempts", Min: "1", Max: strconv.Itoa(stormMaxAttempts)},
	{Flag: "base-backoff", Min: "1ms", Max: "30s"},
	{Flag: "max-backoff", Min: "1s", Max: "1h"},
	{Flag: "failures-to-open", Min: "1", Max: "50"},
	{Flag: "cooldown", Min: "1ms", Max: "1h"},
}

// stormSendTime is how long one send takes; the consumer sends one at a time.
const stormSendTime = 200 * time.Millisecond

func (o *stormOptions) Validate() error {
	var outageStart error
	if o.OutageStart < 0 || o.OutageStart > 10*time.Minute || o.OutageStart%time.Millisecond != 0 {
		outageStart = fmt.Errorf("--outage-start must be a whole number of milliseconds between 0s and 10m0s, got %s", o.OutageStart)
	}
	return firstError(
		intIn("--messages", o.Messages, 1, stormMaxMessages),
		intIn("--max-attempts", o.MaxAttempts, 1, stormMaxAttempts),
		intIn("--failures-to-open", o.FailuresToOpen, 1, 50),
		outageStart,
		millisIn("--outage", o.Outage, time.Second, time.Hour),
		millisIn("--base-backoff", o.BaseBackoff, time.Millisecond, time.Hour),
		millisIn("--max-backoff", o.MaxBackoff, time.Millisecond, time.Hour),
		millisIn("--cooldown", o.Cooldown, time.Millisecond, time.Hour),
		capNotBelowBase("--max-backoff", o.MaxBackoff, "--base-backoff", o.BaseBackoff),
	)
}

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
func (o *stormOptions) drive(ctx context.Context, path string, withBreaker bool) (*stormRun, error) {
	store, err := outbox.Open(ctx, path)
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
