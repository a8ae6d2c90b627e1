package wassal

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// Day 18's second pair: a stop arrives while the worker holds messages.
const (
	shutdownBefore = "session-18-shutdown-abandons-work"
	shutdownAfter  = "session-18-graceful-shutdown"
)

func init() {
	registerDay(shutdownDay, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindShutdown(fs, after) },
		scenarios.Scenario{
			Summary: "Day 18 BEFORE (the lab's own): a stop during work abandons the claims; each waits out its lease and counts an attempt",
			Long: `The lab's Day 18, beyond the course text: the hosted worker is stopped (a
deploy, a scale-down: TERM, then KILL after a grace). Four payments in the
Day 16 store; worker-a holds three at a time under a 1m lease: PAY-001's
handler takes --finish, PAY-002's --long, PAY-003's hangs for --hang. The
stop comes at --stop-at and worker-a exits at once, as a process does on
TERM when nobody handles it: its messages stay Processing under its lease
until the lease runs out, and each has counted an attempt it never
finished. worker-b, the replacement, starts --restart after worker-a is
gone and takes them again only once their lease has ended.

The comparison table beside it runs the AFTER design (a graceful drain) on
the same data.`,
			Example: `  outboxlab session-18-shutdown-abandons-work
  outboxlab session-18-shutdown-abandons-work --stop-at 30s   # PAY-001 has finished by then`,
			FailsWith:        []string{"--restart", "2m"},
			NotExercisedWith: []string{"--stop-at", "0s"},
		},
		scenarios.Scenario{
			Summary: "Day 18 AFTER (the lab's own): on a stop the worker claims nothing more, finishes or releases uncounted, exits by its deadline",
			Long: `The same payments, workers and stop. On TERM worker-a stops claiming and
drains: a handler that returns within --drain of the stop is completed; at
the deadline the handlers still running are cancelled, and each that
returns has its message released: Pending at once, no owner, and its
AttemptCount given back, since the attempt was not made (River's soft stop
since PR #1290). A handler that ignores the cancel (PAY-003, --hang) keeps
worker-a from exiting; it cannot release a message its handler may still
act on. The supervisor's KILL 30s after the stop ends it, and the message,
still Processing, is taken again once its lease ends, within one lease of
the kill.

What the hosted queues do: Sidekiq waits 25s on TERM and pushes back what
is left; Oban's shutdown grace period is 15s; Kubernetes sends KILL 30s
after TERM by default (terminationGracePeriodSeconds); Amazon SQS and
Azure Service Bus let a consumer give a message back at once (a visibility
timeout of 0, Abandon); Temporal's Java SDK (PR #2903) fixed heartbeats
that failed unsent during shutdown, so the server timed the activity out
and it ran again.

Count the release as an attempt with --count-release to watch the checks
catch it.`,
			Example: `  outboxlab session-18-graceful-shutdown
  outboxlab session-18-graceful-shutdown --hang 20s   # PAY-003 returns late in the drain: no kill
  outboxlab session-18-graceful-shutdown --drain 0s   # cancel at once: PAY-001 is released too`,
			FailsWith:        []string{"--count-release"},
			NotExercisedWith: []string{"--stop-at", "0s"},
		})
}

// The pair's fixed parts, on the scenario clock.
const (
	shutdownLease  = time.Minute      // every claim's lease
	shutdownGrace  = 30 * time.Second // the supervisor's KILL after the stop
	shutdownSlots  = 3                // worker-a's handlers at once
	shutdownPays   = 4
	shutdownMaxAt  = 45 * time.Second // the latest stop: before any lease of a claim made at the start ends
	shutdownHangOf = 3                // PAY-003's handler ignores a cancel
)

// shutdownOptions are the shutdown pair's parameters.
type shutdownOptions struct {
	scenarios.Declared
	after bool

	StopAt       time.Duration
	Drain        time.Duration
	Finish       time.Duration
	Long         time.Duration
	Hang         time.Duration
	Restart      time.Duration
	CountRelease bool
}

func bindShutdown(fs *pflag.FlagSet, after bool) *shutdownOptions {
	o := &shutdownOptions{after: after}
	f := declareOn(&o.Declared, fs)
	f.Duration(&o.StopAt, "stop-at", 10*time.Second, 0, shutdownMaxAt,
		"when the stop (TERM) comes; at 0s it comes before worker-a claims anything")
	f.Duration(&o.Drain, "drain", 15*time.Second, 0, shutdownGrace,
		"AFTER: the drain deadline after the stop, at most the supervisor's 30s grace")
	f.Duration(&o.Finish, "finish", 20*time.Second, 0, 10*time.Minute, "how long PAY-001's handler takes")
	f.Duration(&o.Long, "long", 45*time.Second, 0, 10*time.Minute, "how long PAY-002's handler takes (a cancel ends it)")
	f.Duration(&o.Hang, "hang", 10*time.Minute, 0, maxFlagDuration, "how long PAY-003's handler hangs (it ignores a cancel)")
	f.Duration(&o.Restart, "restart", 0, 0, 5*time.Minute, "how long after worker-a is gone worker-b starts")
	f.Bool(&o.CountRelease, "count-release", false,
		"AFTER: a release keeps the attempt its claim counted (River before PR #1290)")
	return o
}

func (o *shutdownOptions) Validate() error { return o.CheckDeclared() }

// handlerOf is how long worker-a's handler of key takes.
func (o *shutdownOptions) handlerOf(key string) time.Duration {
	switch keyIndex(key) {
	case 1:
		return o.Finish
	case 2:
		return o.Long
	case shutdownHangOf:
		return o.Hang
	}
	return quickHandler
}

func (o *shutdownOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	drive := func(ctx context.Context, db dialect.Database, after bool) (*shutdownRun, error) {
		return o.drive(ctx, db, after)
	}
	return runDay[*shutdownRun, shutdownMetrics](ctx, env, shutdownDay, o.after, o, drive)
}

var shutdownDay = day{
	number: 18,
	Pair: scenarios.Pair{
		Before: shutdownBefore, BeforeTitle: "Day 18 — BEFORE: a stop abandons the work in flight",
		After: shutdownAfter, AfterTitle: "Day 18 — AFTER: a graceful shutdown drains, releases uncounted, exits",
	},
	reproduced: "NO DRAIN — THE STOP STRANDS THE WORK UNTIL ITS LEASE ENDS, EACH ATTEMPT COUNTED",
	held:       "GRACEFUL SHUTDOWN — NOTHING NEW CLAIMED, WORK FINISHED OR RELEASED UNCOUNTED, A KILL SURVIVED",
	broken:     "THE DRAIN DID NOT HOLD",
	columns:    []string{"Metric (real run)", "BEFORE (exit at once)", "AFTER (drain)"},
	source:     "the lab's own Day 18, beyond the course text (its sources: --help)",
}
