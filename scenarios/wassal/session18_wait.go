package wassal

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// Day 18's third pair: idle workers waiting for work.
const (
	waitBefore = "session-18-polling-idle-workers"
	waitAfter  = "session-18-woken-on-new-work"
)

func init() {
	registerDay(waitDay, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindWait(fs, after) },
		scenarios.Scenario{
			Summary: "Day 18 BEFORE (the lab's own): idle workers poll at a fixed interval; most polls find nothing, new work waits for the next",
			Long: `The lab's Day 18, beyond the course text: the hosted worker waits for work.
Two idle workers and an empty outbox; a producer writes five payments, each
with its outbox message in one transaction, at uneven moments over five
minutes. Each worker polls every --poll-interval (worker-b half an interval
after worker-a), and at once after finishing a message. Nearly every poll
is a claim statement that finds nothing, and each message waits for the
next poll: the latency from insert to claim is up to an interval. A
shorter interval buys latency with more empty polls.

The polls are counted from the claim statements the engine ran (and the
rows each returned), the latency from each row's CreatedAtUtc and the
provider's first status check, all on the scenario clock.

The comparison table beside it runs the AFTER design (woken on new work)
on the same data.`,
			Example: `  outboxlab session-18-polling-idle-workers
  outboxlab session-18-polling-idle-workers --poll-interval 1s   # no wait, ten times the polls`,
			FailsWith:        []string{"--poll-interval", "1s"},
			NotExercisedWith: []string{"--messages", "0"},
		},
		scenarios.Scenario{
			Summary: "Day 18 AFTER (the lab's own): the producer wakes the idle workers; each message is claimed as it is inserted",
			Long: `The same workers, producer and moments. The producer's insert wakes the
workers that listen: on PostgreSQL a NOTIFY in the insert's transaction,
delivered to each worker's LISTEN connection when it commits; on SQLite,
which has no such thing, the producer wakes them itself once it has
committed. An idle worker that is woken claims at once, so each message is
claimed at the moment it was inserted; both idle workers wake and one finds
nothing (a wake goes to every listener). A worker still polls every
--fallback, in case a wake is lost (a connection dropped while it was
busy), and never more often: no busy polling.

What the queues built on a database do: River and GoodJob LISTEN for new
jobs and poll as a fallback; Oban's notifier wakes its queues on insert;
Solid Queue, without a notifier, polls (0.1s by default); SQS long polling
(WaitTimeSeconds up to 20s) waits on the server instead of asking again.

Turn the wake off with --notify=false to watch the checks catch it.`,
			Example: `  outboxlab session-18-woken-on-new-work
  outboxlab session-18-woken-on-new-work --notify=false   # only the fallback poll: claims wait up to a minute`,
			FailsWith:        []string{"--notify=false"},
			NotExercisedWith: []string{"--messages", "0"},
		})
}

// The pair's fixed parts: the producer's moments and the window watched.
var waitArrivals = []time.Duration{
	7 * time.Second, time.Minute + 3*time.Second, 2*time.Minute + 31*time.Second,
	3*time.Minute + 16*time.Second, 4*time.Minute + 12*time.Second,
}

const waitWindow = 5 * time.Minute

// waitOptions are the waiting pair's parameters.
type waitOptions struct {
	scenarios.Declared
	after bool

	Messages int
	Interval time.Duration
	Fallback time.Duration
	Notify   bool
}

func bindWait(fs *pflag.FlagSet, after bool) *waitOptions {
	o := &waitOptions{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Messages, "messages", len(waitArrivals), 0, len(waitArrivals), "payments the producer writes over the five minutes")
	f.Duration(&o.Interval, "poll-interval", 10*time.Second, time.Second, time.Minute, "BEFORE: how often an idle worker polls")
	f.Duration(&o.Fallback, "fallback", time.Minute, 10*time.Second, waitWindow,
		"AFTER: how often a listening worker still polls, in case a wake is lost")
	f.Bool(&o.Notify, "notify", true, "AFTER: the producer wakes the listening workers (--notify=false: it does not)")
	return o
}

func (o *waitOptions) Validate() error { return o.CheckDeclared() }

// interval is how often an idle worker of the design polls.
func (o *waitOptions) interval(after bool) time.Duration {
	if after {
		return o.Fallback
	}
	return o.Interval
}

func (o *waitOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	drive := func(ctx context.Context, db dialect.Database, after bool) (*waitRun, error) {
		return o.drive(ctx, db, after)
	}
	return runDay[*waitRun, waitMetrics](ctx, env, waitDay, o.after, o, drive)
}

var waitDay = day{
	number: 18,
	Pair: scenarios.Pair{
		Before: waitBefore, BeforeTitle: "Day 18 — BEFORE: idle workers poll at a fixed interval",
		After: waitAfter, AfterTitle: "Day 18 — AFTER: idle workers are woken when work arrives",
	},
	reproduced: "POLLING — MOST POLLS FIND NOTHING, AND NEW WORK WAITS FOR THE NEXT ONE",
	held:       "WOKEN ON NEW WORK — EACH MESSAGE CLAIMED AS IT IS INSERTED, NO BUSY POLLING",
	broken:     "THE WAKE DID NOT HOLD",
	columns:    []string{"Metric (real run)", "BEFORE (polling)", "AFTER (woken)"},
	source:     "the lab's own Day 18, beyond the course text (its sources: --help)",
}
