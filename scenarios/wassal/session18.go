package wassal

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// Day 18 is the lab's own continuation of the course: the hosted worker the
// Day 16 article points to, built on the same store, claim engine and clock.
const (
	session18Before = "session-18-long-handler-loses-lease"
	session18After  = "session-18-lease-renewal"
)

func init() {
	registerDay(session18Day, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindSession18(fs, after) },
		scenarios.Scenario{
			Summary: "Day 18 BEFORE (the lab's own): a handler longer than its lease loses the message; the provider is asked twice",
			Long: `The lab's Day 18, beyond the course text: the hosted worker. Two payments in
the Day 16 store, claimed with a lease and a fencing token. worker-a's handler
for PAY-001 takes --handler (75s) against a --lease of 30s; worker-b's handler
for PAY-002 hangs for --hang. Nobody renews a lease: when it ends, worker-c
claims the message and asks the provider again while the first handler still
runs ("after exactly 30 minutes, a second thread executes the same job",
Hangfire #1197). When worker-a finally completes, the row carries worker-c's
token and the completion is refused. --fencing=false completes by id instead:
the late completion overwrites worker-c's and the customer is notified twice
(River #1302: a rescuer overwrote a job that had just completed).

The comparison table beside it runs the AFTER design (lease renewal) on the
same data.`,
			Example: `  outboxlab session-18-long-handler-loses-lease
  outboxlab session-18-long-handler-loses-lease --fencing=false   # the late completion overwrites`,
			FailsWith:        []string{"--handler", "20s"},
			NotExercisedWith: []string{"--rival=false"},
		},
		scenarios.Scenario{
			Summary: "Day 18 AFTER (the lab's own): the worker renews its lease before it ends, guarded by owner and token, up to a cap",
			Long: `The same payments and workers. While a handler runs, its worker renews the
lease --margin before it ends: an UPDATE of LockedUntilUtc that applies only
while the row still carries the worker and its token and the lease has not
ended (a renewal after expiry is refused, never a revival). Renewals stop at
--renew-cap from the claim: worker-a's 75s handler keeps PAY-001 and the
provider is asked once; worker-b's handler, hung past the cap, loses PAY-002
honestly, worker-c retries it (attempt 2), and worker-b's completion when it
comes back is refused by the token.

Real queues do the same: Amazon SQS ChangeMessageVisibility (30s by default,
extendable up to 12h), Azure Service Bus lock renewal (a 1 min lock renewed up
to 5 min by default; azure-service-bus-dotnet #684: automatic renewal that
fails silently), NATS JetStream InProgress, Temporal activity heartbeats, and
River's rescuer for jobs stuck past their timeout (River #1302).

Switch the owner check off with --fencing=false to watch the checks catch it.`,
			Example: `  outboxlab session-18-lease-renewal
  outboxlab session-18-lease-renewal --renew-cap 1m      # the cap shorter than worker-a's handler
  outboxlab session-18-lease-renewal --margin 2s --lease 10s`,
			FailsWith:        []string{"--fencing=false"},
			NotExercisedWith: []string{"--rival=false"},
		})
}

// The scenario's acts, on the scenario clock.
const (
	claimA18At   time.Duration = 0               // worker-a claims PAY-001
	claimB18At                 = time.Second     // worker-b claims PAY-002
	rival18At                  = 2 * time.Second // worker-c polls first
	quickHandler               = 2 * time.Second // worker-c's handler
	payments18                 = 2
)

// session18Options are the Day 18 pair's parameters.
type session18Options struct {
	scenarios.Declared
	after   bool
	verbose bool

	Lease    time.Duration
	Handler  time.Duration
	Hang     time.Duration
	Margin   time.Duration
	RenewCap time.Duration
	Fencing  bool
	Rival    bool
}

func bindSession18(fs *pflag.FlagSet, after bool) *session18Options {
	o := &session18Options{after: after}
	f := declareOn(&o.Declared, fs)
	f.Duration(&o.Lease, "lease", 30*time.Second, 5*time.Second, time.Hour, "how long a claim (or a renewal) owns a message")
	f.Duration(&o.Handler, "handler", 75*time.Second, 0, maxFlagDuration, "how long worker-a's handler for PAY-001 takes")
	f.Duration(&o.Hang, "hang", 10*time.Minute, 0, maxFlagDuration, "how long worker-b's handler for PAY-002 hangs before it returns")
	f.Duration(&o.Margin, "margin", 10*time.Second, time.Millisecond, time.Hour,
		"AFTER: renew this long before the lease ends (at most half the lease)")
	f.Duration(&o.RenewCap, "renew-cap", 2*time.Minute, time.Second, time.Hour,
		"AFTER: renewals never hold a claim longer than this from the claim")
	f.Bool(&o.Fencing, "fencing", true, "completions check the claim's worker and token (--fencing=false: complete by id)")
	f.Bool(&o.Rival, "rival", true, "worker-c polls while the handlers run (--rival=false: only once they have returned)")
	return o
}

func (o *session18Options) Validate() error { return o.CheckDeclared() }

// margin is the renewal margin used: --margin, at most half the lease, so
// that each renewal leaves time before the next.
func (o *session18Options) margin() time.Duration { return min(o.Margin, o.Lease/2) }

// session18Run is one design driven to its end.
type session18Run struct {
	renews, fenced bool
	serial         bool
	lines          []string
	renewals       []renewal18
	capped         []capStop
	late           []refusal // completions tried while the row named another owner or token
	claims         []claim18
	ended          time.Time
	ledger         Ledger
	notifications  []notification
	tables         []outbox.Table
	prov           *provider.Provider
}

// renewal18 is one renewal and the row read right before and right after it.
type renewal18 struct {
	key, worker   string
	token         int64
	at            time.Time
	before, after outbox.Message
}

// capStop is a claim whose renewals stopped at the cap.
type capStop struct {
	key, worker  string
	at, leaseEnd time.Time
}

// claim18 is one claim as the claim returned it.
type claim18 struct {
	key, worker string
	at          time.Time
	token       int64
	attempt     int
}

func (o *session18Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	drive := func(ctx context.Context, db dialect.Database, after bool) (*session18Run, error) {
		return o.drive(ctx, db, after)
	}
	o.verbose = env.Verbose
	return runDay[*session18Run, session18Metrics](ctx, env, session18Day, o.after, o, drive)
}

var session18Day = day{
	number: 18,
	Pair: scenarios.Pair{
		Before: session18Before, BeforeTitle: "Day 18 — BEFORE: a long handler loses its lease",
		After: session18After, AfterTitle: "Day 18 — AFTER: lease renewal, with a margin, up to a cap",
	},
	reproduced: "NO RENEWAL — A HANDLER LONGER THAN ITS LEASE LOSES THE MESSAGE, THE PROVIDER IS ASKED TWICE",
	held:       "LEASE RENEWAL — LONG HANDLERS KEEP THEIR CLAIM, A HUNG ONE LOSES IT AT THE CAP",
	broken:     "OWNERSHIP DID NOT HOLD",
	columns:    []string{"Metric (real run)", "BEFORE (no renewal)", "AFTER (renewal)"},
	source:     "the lab's own Day 18, beyond the course text (its sources: --help)",
}
