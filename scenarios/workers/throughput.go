package workers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/claim"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const throughputName = "worker-throughput"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:   throughputName,
		Family: "workers",
		Alone:  true, // its metrics are measurements: all runs it by itself
		Kind:   report.Experiment,
		// The golden run pins a bigger backlog, claim and burst than the
		// defaults (sized so that a run takes about a second), whatever
		// those become.
		GoldenArgs: []string{"--messages", "2000", "--batch", "100", "--produce-for", "10s"},
		// An age limit below what the default burst builds (980 ms; 480 ms
		// after a 2 s burst): the age invariant breaks.
		FailsWith: []string{"--max-age", "300ms"},
		// Production below the consumers' capacity: nothing queues up, so
		// the overload's growth and drain are not exercised.
		NotExercisedWith: []string{"--produce-rate", "300"},
		Summary:          "Worker throughput: messages/s with 1, 2, 4 and 8 workers, claims of 1 and of K, and a queue under overload",
		Long: `Part 1 drains a backlog of --messages outbox messages with 1, 2, 4 and 8
workers, first claiming one message at a time and then --batch messages per
claim. Each configuration's backlog is drained in --repeats rounds,
interleaved: a round drains the next part of every configuration's backlog
in turn, so that load on the machine that comes and goes weighs on all of
them alike. It prints each configuration's median messages per second and
the range of its rounds, the speed-up over the first worker count (the
median of the round-by-round ratios), and a conclusion computed from those
numbers: a difference counts only when the ratio is beyond 1 the same way in
every round and its median beyond 1.2x; anything less is inside the noise
(--workers 1,1 drains two series of one configuration to show what that is).

On SQLite the workers are goroutines (real worker processes with
--processes) and every claim and settlement is a BEGIN IMMEDIATE
transaction: SQLite lets one writer in at a time, so more workers add
waiting, and fewer write transactions per message is what pays; what more
workers can overlap is a handler that waits outside the transaction
(--handler-delay). On PostgreSQL (--database postgres://...) each worker is
a process of its own with its own connection, as on several hosts, claiming
with FOR UPDATE SKIP LOCKED: writers work side by side until the CPU or the
WAL flush limits them. The checks read each drained database, never
timings: every message Processed exactly once in the delivery ledger, none
lost, one claim each, and ⌈n/claim⌉ settlement transactions for a round of
n recorded in the ledger, one per claim; wall-clock lines end with
[measured] and compare skips them. The default backlog is small so that a
run takes about a second; --messages makes the measurement bigger and
steadier.

Part 2 runs on the scenario clock: a producer writes above the consumers'
capacity for --produce-for, and the queue depth and the oldest message's age
grow every tick, then drain once production stops. The depth read from the
file each tick must equal the arithmetic's. A --produce-rate at or below the
consumers' capacity is a legal run that builds no queue: its growth and drain
are not exercised (NOT EXERCISED, exit 1). The oldest message's age must stay
within --max-age: a longer burst or a lower limit breaks it (exit 1).

Limits: the run's work is computed from the flags before it starts, and a
combination that would take too long is refused, naming the work it needs.`,
		Example: `  outboxlab worker-throughput
  outboxlab worker-throughput --processes --messages 2000   # real worker processes on one file
  outboxlab worker-throughput --database postgres://...     # worker processes on PostgreSQL
  outboxlab worker-throughput --handler-delay 5ms           # slow handlers: now more workers pay
  outboxlab worker-throughput --workers 1,1                 # one worker against itself: the noise
  outboxlab worker-throughput --produce-for 30s             # a longer burst breaks the age limit`,
		Bind: func(fs *pflag.FlagSet) scenarios.Options { return bindThroughput(fs) },
	})
}

// throughputOptions are worker-throughput's parameters.
type throughputOptions struct {
	scenarios.Declared

	// Part 1: the drain.
	Messages     int           // 250
	Repeats      int           // 9
	Workers      []int         // 1, 2, 4, 8
	Batch        int           // 25
	Processes    bool          // false: goroutines (always processes on PostgreSQL)
	HandlerDelay time.Duration // 0
	Lease        time.Duration // claim.DefaultLease

	// Part 2: overload on the scenario clock.
	ProduceRate int           // 500 messages/s
	ProduceFor  time.Duration // 4s
	Consumers   int           // 2
	ServiceTime time.Duration // 5ms
	Tick        time.Duration // 100ms
	MaxAge      time.Duration // 5s
}

// bindThroughput declares the flags. Every flag at its maximum together
// stays within the work budgets Validate holds the run to, and so does each
// extreme with the other flags at their defaults; other combinations may be
// refused by a budget. Only --tick is scenario time in whole milliseconds;
// the other durations are waits and leases of any precision.
func bindThroughput(fs *pflag.FlagSet) *throughputOptions {
	o := &throughputOptions{}
	f := o.Declare(fs)
	f.Ints(&o.Workers, "workers", []int{1, 2, 4, 8}, 1, 16, "worker counts to drain with (comma list; the first is the speed-up "+
		"baseline; a count listed twice is drained as two series, to show the noise)")
	f.Int(&o.Messages, "messages", 250, 1, 4000, "messages each drain configuration drains, over all its rounds (more: a steadier measurement)")
	f.Int(&o.Repeats, "repeats", 9, 1, 15, "rounds each configuration's backlog is drained in, interleaved with the others' "+
		"(fewer than 6 tell no difference from the noise)")
	f.Int(&o.Batch, "batch", 25, 2, 1000, "messages per claim in the batched configurations (the others claim 1)").
		Because("the unbatched configurations claim 1")
	f.Int(&o.ProduceRate, "produce-rate", 500, 1, 1000, "overload: messages per second (scenario time) the producer writes")
	f.Int(&o.Consumers, "consumers", 2, 1, 64, "overload: consumer workers")
	f.Bool(&o.Processes, "processes", false, "run each worker as a real child process instead of a goroutine (always on PostgreSQL)")
	f.Duration(&o.HandlerDelay, "handler-delay", 0, 0, maxHandlerDelay,
		"real time each handler call waits outside any transaction, like a provider round-trip").AnyPrecision()
	f.Duration(&o.Lease, "lease", claim.DefaultLease, time.Millisecond, time.Hour, "how long a claim owns a message").AnyPrecision()
	f.Duration(&o.ProduceFor, "produce-for", 4*time.Second, time.Second, 30*time.Second, "overload: how long the producer writes").AnyPrecision()
	f.Duration(&o.ServiceTime, "service-time", 5*time.Millisecond, time.Millisecond, 100*time.Millisecond,
		"overload: scenario time one consumer spends on one message").AnyPrecision()
	f.Duration(&o.Tick, "tick", 100*time.Millisecond, 5*time.Millisecond, time.Second,
		"overload: scenario time between two samples (and two claims per consumer)")
	f.Duration(&o.MaxAge, "max-age", 5*time.Second, time.Millisecond, time.Hour, "overload: the oldest message's age must stay within this").AnyPrecision()
	return o
}

// perTick is how many messages one consumer finishes in one tick.
func (o *throughputOptions) perTick() int { return int(o.Tick / o.ServiceTime) }

// capacity is the consumers' messages per second of scenario time.
func (o *throughputOptions) capacity() float64 {
	return float64(o.Consumers*o.perTick()) / o.Tick.Seconds()
}

func (o *throughputOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	prog := &progress{w: env.Progress}
	ceilingDB, err := env.DB(ctx, "ceiling")
	if err != nil {
		return nil, err
	}
	ceiling, err := measureCeiling(ctx, ceilingDB)
	if err != nil {
		return nil, err
	}
	drains, err := o.runRounds(ctx, env, prog)
	if err != nil {
		return nil, err
	}
	overloadDB, err := env.DB(ctx, "overload")
	if err != nil {
		return nil, err
	}
	over, err := o.overload(ctx, overloadDB)
	if err != nil {
		return nil, fmt.Errorf("run the overload: %w", err)
	}
	return o.render(backend{serial: env.Dialect().SerialWriters()}, env.Verbose, ceiling, drains, over), nil
}

// configs are part 1's configurations in the order the tables list them:
// claims of 1, then of --batch, each with every --workers count. Where
// writers do not take turns (rowLocks: the dialect's SerialWriters is
// false) the workers are processes, as --processes makes them.
func (o *throughputOptions) configs(rowLocks bool) []drainConfig {
	var out []drainConfig
	for _, batch := range []int{1, o.Batch} {
		seen := map[int]int{}
		for _, workers := range o.Workers {
			out = append(out, drainConfig{Workers: workers, Series: seen[workers], Batch: batch, Processes: o.Processes || rowLocks,
				HandlerDelay: o.HandlerDelay, Lease: o.Lease, Messages: o.Messages})
			seen[workers]++
		}
	}
	return out
}

// runRounds drains every configuration's backlog in rounds, interleaved: a
// round drains the next part of each configuration's backlog, one
// configuration after the other, in the tables' order in the first round,
// the reverse in the second, and so on, so that a machine that slows down
// or speeds up during the run weighs on every configuration alike.
func (o *throughputOptions) runRounds(ctx context.Context, env scenarios.Env, prog *progress) ([]*drainRun, error) {
	configs := o.configs(!env.Dialect().SerialWriters())
	crews := make([]*crew, 0, len(configs))
	defer func() {
		for _, c := range crews {
			c.Close()
		}
	}()
	for i, cfg := range configs {
		location := env.Database // the first drain's database is the one --keep-db keeps
		if i > 0 {
			var err error
			if location, err = env.DB(ctx, fmt.Sprintf("drain-%dw%s-%db", cfg.Workers, strings.Repeat("-again", cfg.Series), cfg.Batch)); err != nil {
				return nil, err
			}
		}
		c, err := newCrew(ctx, location, cfg)
		if err != nil {
			return nil, fmt.Errorf("prepare the drain with %s: %w", cfg.label(), err)
		}
		crews = append(crews, c)
	}
	for k, n := range rounds(o.Messages, o.Repeats) {
		order := slices.Clone(crews)
		if k%2 == 1 {
			slices.Reverse(order)
		}
		for _, c := range order {
			if err := c.round(ctx, n, prog); err != nil {
				return nil, fmt.Errorf("drain with %s, round %d: %w", c.run.cfg.label(), k+1, err)
			}
		}
	}
	drains := make([]*drainRun, len(crews))
	for i, c := range crews {
		var err error
		if drains[i], err = c.finish(ctx); err != nil {
			return nil, err
		}
	}
	crews = nil
	return drains, nil
}

// baseline returns the drain with the first --workers count, its first
// series, and claims of batch.
func baseline(drains []*drainRun, first int, batch int) *drainRun {
	i := slices.IndexFunc(drains, func(d *drainRun) bool {
		return d.cfg.Workers == first && d.cfg.Series == 0 && d.cfg.Batch == batch
	})
	if i < 0 {
		return nil
	}
	return drains[i]
}
