package wassal

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/changelog"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

const (
	session16Before = "session-16-poison-message-retried-forever"
	session16After  = "session-16-retry-with-dead-letter"
)

func init() {
	registerDay(session16Day, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindSession16(fs, after) },
		scenarios.Scenario{
			Aliases: []string{"poison-retried-forever"},
			Summary: "Day 16 BEFORE: Day 15's store retries a poison message at once, forever: no limit, no backoff, no exit (with --batch 1 it starves the queue)",
			Long: `Seeds the Day 14 durable outbox (six payments pending confirmation, one outbox
message each) and drains it with Day 15's design (the lease and the atomic
claim, which counts AttemptCount at claim time) and one worker whose failure
path is the naive one: put the message straight back to Pending and try again.
Its store has no MaxAttempts, no NextAttemptUtc and no DeadLettered status: Day 16
has not introduced them yet. PAY-003's status check fails every time, so it is
claimed again and again with no ceiling and no pause, until the demo cap
(--retry-cap) stops the run. Nothing is a lie: healthy payments resolve, no row
is duplicated, no transaction id is invented. The damage is unbounded wasted
work and a queue that never drains.

The claim size: the course's claim shows LIMIT 1, but its numbers (5/5 healthy
messages processed, 15 status checks) come from a worker that claims more than
one message per poll, as this one does (--batch 10). With --batch 1 the poison
message at the head of the queue is claimed again at every poll and starves the
messages behind it: 2/5 healthy processed, 12 status checks, when the cap stops it.

The comparison table beside it runs the AFTER design on the same seeded data.`,
			Example: `  outboxlab session-16-poison-message-retried-forever
  outboxlab poison-retried-forever --retry-cap 25     # the attempts just keep climbing
  outboxlab poison-retried-forever --batch 1          # the poison starves the messages behind it`,
			// A transient failure is no poison: the naive loop retries it until it pays.
			FailsWith:        []string{"--poison-key", "none", "--flaky-key", "PAY-003:2"},
			NotExercisedWith: []string{"--retry-cap", "1"},
		},
		scenarios.Scenario{
			Aliases: []string{"retry-with-dead-letter"},
			Summary: "Day 16 AFTER: MaxAttempts, exponential backoff, then a DeadLettered exit; the poison, a would-be Failed payment, parked with no money lost",
			Long: `The same seed and the same poison message, drained with the Day 16 policy: the
claim is gated by the lease and by NextAttemptUtc, AttemptCount is incremented at
claim time, a failure below MaxAttempts goes back to Pending with an exponential
backoff (base × 2^(n-1)), and the failure that reaches MaxAttempts parks the
message as DeadLettered with its LastError. When nothing is claimable the worker
moves the scenario clock to the earliest NextAttemptUtc + 1 ms, so the backoff
windows are exact and nothing sleeps. PAY-003's payment stays honestly
PendingConfirmation: dead-lettering stops the retries, it invents no outcome.
The poison message is a would-be Failed payment, so dead-lettering it loses no
money: the provider never took any.

The store has Day 16's schema: Day 15's lease and claim plus MaxAttempts,
NextAttemptUtc, LastError and the DeadLettered status (--schema shows it).

The demo cap (--retry-cap) stops this run only with the exit off: with it on,
MaxAttempts ends every retry, so --max-attempts 12 gives the article's algorithm
12 attempts and 17 status checks. --flaky-key PAY-004:2 adds a transient
failure (two failed status checks, then it pays): backoff outlasts it, and a
--max-attempts of 2 or less dead-letters a message that would have recovered.

Switch the exit off with --dead-letter=false to watch the safety checks catch it.`,
			Example: `  outboxlab session-16-retry-with-dead-letter
  outboxlab retry-with-dead-letter --max-attempts 5    # backoffs 200/400/800/1600 ms
  outboxlab retry-with-dead-letter --flaky-key PAY-004:2 --max-attempts 2   # gives up too early
  outboxlab retry-with-dead-letter --poison-key PAY-002,PAY-005 --declined-key PAY-006`,
			FailsWith:        []string{"--dead-letter=false"},
			NotExercisedWith: []string{"--poison-key", "none", "--dead-letter=false"},
		})
}

// session16Options are the Day 16 pair's parameters. Both scenarios take all
// of them, because each report compares both designs on the same seed.
type session16Options struct {
	scenarios.Declared
	after   bool // which design is this scenario's own: BEFORE (naive) or AFTER (policy)
	verbose bool // --verbose: every event on its own timeline line, the full ledgers

	Payments    int
	PoisonKeys  []string
	DeclinedKey string
	MaxAttempts int
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	RetryCap    int
	Lease       time.Duration
	Batch       int
	DeadLetter  bool
	FlakyFlag   string // --flaky-key as given: KEY:N, or none

	flaky flakyKey // --flaky-key once Validate has read it
}

func bindSession16(fs *pflag.FlagSet, after bool) *session16Options {
	o := &session16Options{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Payments, "payments", 6, minPayments, maxPayments, "payments to seed, PAY-001 onwards, each with one outbox message")
	f.Strings(&o.PoisonKeys, "poison-key", []string{"PAY-003"}, scenarios.WordLength, `payment keys whose provider status check fails every time (comma list; "none": no poison, nothing fails)`)
	f.String(&o.DeclinedKey, "declined-key", "PAY-005", scenarios.WordLength, `healthy payment key the provider declines ("none" for no declines)`)
	f.Int(&o.MaxAttempts, "max-attempts", 3, 1, defaultAttemptsLimit, "AFTER: attempts before a message is dead-lettered (MaxAttempts); "+
		"more with --max-backoff").
		Within(func() (int, int) { return 1, o.attemptsLimit() }, o.refuseAttempts)
	f.Duration(&o.BaseBackoff, "base-backoff", defaultBaseBackoff, 0, maxFlagDuration, "AFTER: backoff after the first failure; doubles each attempt")
	f.Duration(&o.MaxBackoff, "max-backoff", 0, 0, maxFlagDuration, "AFTER: cap on any one backoff (0: no cap)")
	f.Int(&o.RetryCap, "retry-cap", 10, 1, 1000, "demo cap: stop the run once the poison message reaches this many attempts (the naive loop never ends by itself)")
	f.Duration(&o.Lease, "lease", claim.DefaultLease, time.Millisecond, maxFlagDuration, "how long a claim owns a message")
	f.Int(&o.Batch, "batch", 10, 1, 100, "messages the worker claims per poll; the course's numbers need more than 1 (with 1, BEFORE's poison at the head of the queue starves the rest)")
	f.Bool(&o.DeadLetter, "dead-letter", true, "AFTER: the dead-letter exit (--dead-letter=false switches it off)")
	f.String(&o.FlakyFlag, "flaky-key", scenarios.NoKey, scenarios.WordLength, fmt.Sprintf(
		`KEY:N, a payment whose status check fails N times, then pays: a transient failure (N %d..%d; "none" for none)`,
		minFlakyFails, maxFlakyFails))
	return o
}

// maxPoisonAttempts bounds the work of a Day 16 run: the poison attempts of
// both designs together (every one a claim, a provider call and a write).
const maxPoisonAttempts = 2000

func (o *session16Options) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	var err error
	if o.PoisonKeys, o.DeclinedKey, err = poisonFlags(o.PoisonKeys, o.DeclinedKey, o.Payments); err != nil {
		return err
	}
	if o.flaky, err = o.readFlaky(); err != nil {
		return err
	}
	poison, policy := len(o.PoisonKeys), o.policyAttempts()
	if work := poison * (o.RetryCap + policy); work > maxPoisonAttempts {
		return fmt.Errorf("%s × (%d naive + %d policy attempts) = %d attempts, at most %d: "+
			"fewer --poison-key or a lower --retry-cap", report.Plural(poison, "poison key"), o.RetryCap, policy, work, maxPoisonAttempts)
	}
	if o.flaky.key != "" {
		policy = max(policy, min(o.flaky.fails+1, o.MaxAttempts))
	}
	if s := span(0).backoffs(o.BaseBackoff, o.MaxBackoff, 1, policy-1); s.tooLong() {
		return fmt.Errorf("%d policy attempts backing off from --base-backoff %s, doubling%s, would move the scenario clock %s: "+
			"set --max-backoff or fewer attempts", policy, durationText(o.BaseBackoff), o.ceilingText(), s.text())
	}
	return nil
}

// policyAttempts is the most attempts a poison message gets under the Day 16
// policy: MaxAttempts, where the exit ends it; with the exit off, the demo
// cap stops the run instead.
func (o *session16Options) policyAttempts() int {
	if !o.DeadLetter {
		return o.RetryCap
	}
	return o.MaxAttempts
}

// capped reports whether the demo cap watches a design's run: the naive loop
// never ends by itself, nor does the policy with its exit off; with the exit
// on, MaxAttempts ends every poison message's retries, as the article's
// algorithm does, whatever --retry-cap says.
func (o *session16Options) capped(naive bool) bool { return naive || !o.DeadLetter }

// session16Run is one design driven to its end on its own database.
type session16Run struct {
	naive      bool
	events     []worker.Event
	polls      []poll16
	capped     bool     // the demo cap stopped the run
	cappedKeys []string // the poison messages that reached it
	ledger     Ledger
	tables     []outbox.Table
	prov       *provider.Provider
	started    time.Time
	ended      time.Time
}

func (o *session16Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	o.verbose = env.Verbose
	drive := func(ctx context.Context, db dialect.Database, after bool) (*session16Run, error) {
		return o.drive(ctx, db, !after)
	}
	return runDay[*session16Run, session16Metrics](ctx, env, session16Day, o.after, o, drive)
}

// policy is the failure policy of a design: the naive one retries at once,
// forever; the Day 16 one backs off and dead-letters at MaxAttempts.
func (o *session16Options) policy(naive bool) (backoff.Policy, int) {
	if naive {
		return backoff.Policy{}, 0
	}
	return backoff.Policy{Backoff: backoff.Backoff{Base: o.BaseBackoff, Cap: o.MaxBackoff}, DeadLetter: o.DeadLetter}, o.MaxAttempts
}

// design is the store a run opens: the Day 16 BEFORE is Day 15's design
// retrying naively (no MaxAttempts, no NextAttemptUtc, no DeadLettered); the
// AFTER has Day 16's.
func (o *session16Options) design(naive bool) outbox.Design {
	if naive {
		return Day(15)
	}
	return Day(16)
}

func (o *session16Options) drive(ctx context.Context, db dialect.Database, naive bool) (*session16Run, error) {
	store, err := o.design(naive).Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	clk := clock.New()
	policy, maxAttempts := o.policy(naive)
	if err := SeedDurableOutbox(ctx, store, o.Payments, maxAttempts, clk.Now()); err != nil {
		return nil, err
	}
	if err := changelog.Seeded(ctx, clk.Now()); err != nil {
		return nil, err
	}
	prov := NewProvider(o.PoisonKeys, o.DeclinedKey)
	if o.flaky.key != "" {
		prov.Script(o.flaky.key, provider.Rule{FailFirst: o.flaky.fails, Outcome: provider.Paid})
	}
	w := &worker.Worker{ID: "worker-1", Store: store, Clock: clk, Handler: ConfirmHandler(prov),
		Policy: policy, Lease: o.Lease, Batch: o.Batch}

	run := &session16Run{naive: naive, started: clk.Now()}
	attempts, terminal := map[string]int{}, map[string]bool{}
	due := newQueue(PaymentKeys(o.Payments))
	limit := o.Payments + (len(o.PoisonKeys)*max(o.RetryCap, o.MaxAttempts)+o.flaky.fails)*2 + 10
	for step := 0; ; step++ {
		if step > limit {
			return nil, fmt.Errorf("the worker did not settle after %d steps", limit)
		}
		at := clk.Now()
		res, err := w.Step(ctx)
		if err != nil {
			return nil, err
		}
		run.polls = append(run.polls, due.poll(at, res))
		for _, e := range res.Events {
			attempts[e.Key] = max(attempts[e.Key], e.Attempt)
			terminal[e.Key] = e.Kind == worker.Processed || e.Kind == worker.DeadLettered
		}
		run.events = append(run.events, res.Events...)
		if err := recordStep(ctx, clk.Now(), res.Events, TimelineLine); err != nil {
			return nil, err
		}
		if res.Idle {
			break
		}
		if !o.capped(naive) {
			continue
		}
		if run.cappedKeys = o.poisonCapped(attempts, terminal); len(run.cappedKeys) > 0 {
			run.capped = true
			break
		}
	}
	run.ended = clk.Now()
	if run.ledger, err = ReadLedger(ctx, store, prov); err != nil {
		return nil, err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return nil, err
	}
	run.prov = prov
	return run, nil
}

// poisonCapped reports whether a poison message still in play has reached the
// demo cap, which is where a naive run is stopped: it would go on forever.
// One is enough: with one message per poll the first poison message starves
// the others, which then never reach the cap at all.
func (o *session16Options) poisonCapped(attempts map[string]int, terminal map[string]bool) []string {
	var capped []string
	for _, k := range o.PoisonKeys {
		if !terminal[k] && attempts[k] >= o.RetryCap {
			capped = append(capped, k)
		}
	}
	return capped
}
