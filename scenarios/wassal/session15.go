package wassal

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	session15Before = "session-15-double-processing-without-lease"
	session15After  = "session-15-outbox-leasing"
)

func init() {
	registerDay(session15Day, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindSession15(fs, after) },
		scenarios.Scenario{
			Summary: "Day 15 BEFORE: select-then-update lets two workers process one message; a dead worker's message is stuck forever",
			Long: `Six confirmation messages in the Day 14 outbox, three workers, no atomic claim:
a worker reads the oldest Pending rows, then marks them Processing in a separate
statement. worker-c, a real child process, marks PAY-001 and is killed with
SIGKILL after the provider answered: with no lease, its row stays Processing
forever and the payment is never confirmed. Then worker-a and worker-b poll at
the same moment and both read before either writes: both take PAY-002 and
PAY-003, both ask the provider, both notify the customer, both complete.

The comparison table beside it runs the AFTER design on the same seeded data.`,
			Example: `  outboxlab session-15-double-processing-without-lease
  outboxlab session-15-double-processing-without-lease --batch 3       # three messages done twice`,
			FailsWith:        []string{"--overlap=false"},
			NotExercisedWith: []string{"--crash-point", "none"},
		},
		scenarios.Scenario{
			Summary: "Day 15 AFTER: an atomic claim with a lease and a token: one owner at a time, takeover after expiry, late completion refused",
			Long: `The same messages and workers with the Day 15 claim: one transaction
(BEGIN IMMEDIATE on SQLite, FOR UPDATE SKIP LOCKED on PostgreSQL) reads and
conditionally updates each row, setting LockedBy, LockedUntilUtc and a new
ClaimToken. worker-c (a real child process) claims PAY-001 and is killed; its
lease expires on the scenario clock and worker-b takes over. worker-a and
worker-b poll at the same moment; the claims keep apart and take different
messages. worker-a then stalls for --stall
after asking the provider about PAY-006; its lease expires, worker-b takes the
message over, and when worker-a comes back its completion is refused because the
row no longer carries its worker and token. One notification per payment.

Switch the owner check off with --fencing=false to watch the safety checks catch it.`,
			Example: `  outboxlab session-15-outbox-leasing
  outboxlab session-15-outbox-leasing --lease 1m         # worker-a is back in time: nothing to refuse`,
			FailsWith:        []string{"--fencing=false"},
			NotExercisedWith: []string{"--crash-point", "none"},
		})
}

// The scenario's acts, on the scenario clock.
const (
	crashActAt time.Duration = 0               // worker-c claims and dies
	raceActAt                = time.Second     // worker-a and worker-b poll
	stallActAt               = 2 * time.Second // worker-a claims one more and stalls
)

// session15Options are the Day 15 pair's parameters.
type session15Options struct {
	scenarios.Declared
	after   bool // which design is this scenario's own: BEFORE (naive) or AFTER (leased)
	verbose bool // --verbose: the full ledgers, the notifications among them

	Payments    int
	Batch       int
	Lease       time.Duration
	Stall       time.Duration
	CrashPoint  string
	DeclinedKey string
	Overlap     bool
	Fencing     bool
}

// Crash points of worker-c; with noCrash it finishes its message and exits.
const (
	afterCall  = "after-call"
	beforeCall = "before-call"
	noCrash15  = "none"
)

func bindSession15(fs *pflag.FlagSet, after bool) *session15Options {
	o := &session15Options{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Payments, "payments", 6, minPayments, maxPayments, "payments seeded PendingConfirmation, each with its outbox message")
	f.Int(&o.Batch, "batch", 2, 1, 100, "messages worker-a and worker-b each take per poll")
	f.Duration(&o.Lease, "lease", 30*time.Second, time.Millisecond, maxFlagDuration, "AFTER: how long a claim owns a message")
	f.Duration(&o.Stall, "stall", 45*time.Second, 0, maxFlagDuration, "how long worker-a stalls between the provider's answer and recording it")
	f.String(&o.CrashPoint, "crash-point", afterCall, scenarios.WordLength, `when worker-c dies: "after-call" (the provider answered), "before-call" (right after claiming) or "none" (it finishes its message)`)
	f.String(&o.DeclinedKey, "declined-key", "PAY-005", scenarios.WordLength, `key the provider declines ("none" for no declines)`)
	f.Bool(&o.Overlap, "overlap", true, "worker-a and worker-b poll at the same moment (--overlap=false: worker-b polls after worker-a's claim)")
	f.Bool(&o.Fencing, "fencing", true, "AFTER: completions check the claim's worker and token (--fencing=false: complete by id)")
	return o
}

func (o *session15Options) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	if o.CrashPoint != afterCall && o.CrashPoint != beforeCall && o.CrashPoint != noCrash15 {
		return fmt.Errorf(`--crash-point must be "after-call", "before-call" or "none", got %q`, o.CrashPoint)
	}
	var err error
	o.DeclinedKey, err = keyFlag("declined-key", o.DeclinedKey, o.Payments)
	return err
}

// session15Run is one design driven to its end.
type session15Run struct {
	naive, fenced bool
	serial        bool // the run's database's writers take turns (SQLite)
	lines         []string
	takenAtOnce   []string       // messages claimed while another worker's claim was still valid
	takeovers     []takeover     // messages claimed after another worker's lease expired
	lateAttempts  []refusal      // completions tried while the row named another owner or token
	completions   map[string]int // completions committed, per key
	crashed       string         // the message worker-c held when it died
	crashedRow    outbox.Message // its row as the crash left it on disk
	ended         time.Time
	ledger        Ledger
	notifications []notification
	claimedBy     map[string][]string // which workers claimed each message, in order
	tables        []outbox.Table
	prov          *provider.Provider
}

type takeover struct {
	key, from, to string
	expired, at   time.Time
	token         int64
}

type refusal struct {
	key, worker       string
	token, ownerToken int64
	at                time.Time
}

func (o *session15Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	drive := func(ctx context.Context, db dialect.Database, after bool) (*session15Run, error) {
		return o.drive(ctx, db, !after)
	}
	o.verbose = env.Verbose
	return runDay[*session15Run, session15Metrics](ctx, env, session15Day, o.after, o, drive)
}
