package wassal

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

const (
	session17Before = "session-17-blind-redrive"
	session17After  = "session-17-audited-redrive"
)

func init() {
	registerDay(session17Day, (&session17Options{}).limits(), func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindSession17(fs, after) },
		scenarios.Scenario{
			Summary: "Day 17 BEFORE: a blind reset of dead letters to Pending, AttemptCount 0, while the provider is still broken",
			Long: `Starts where Day 16 ends: the status API failed for PAY-002, PAY-003 and PAY-004,
so after MaxAttempts each was dead-lettered with its LastError. Thirty minutes
later someone "redrives" them with one UPDATE: Status back to Pending,
AttemptCount 0, LastError and DeadLetteredAtUtc cleared, all at once, no
approver, no reason, no record. The provider is still broken (--provider-fixed
defaults to false here), so the poison loop runs again and dead-letters them a
second time, and the rows now claim three attempts where six were made: the
original failure history is gone.

The comparison table beside it runs the AFTER design on the same seed.`,
			Example: `  outboxlab session-17-blind-redrive
  outboxlab session-17-blind-redrive --poison-key PAY-001,PAY-006 --max-attempts 4`,
			FailsWith: []string{"--provider-fixed"},
		},
		scenarios.Scenario{
			Summary: "Day 17 AFTER: an authorised, audited redrive in bounded batches under new claims, verified before closing",
			Long: `The same dead letters, redriven the safe way once the provider is fixed. The
redrive needs an approver and a reason (--approver, --reason; empty is refused
with exit 2) and writes an audit record naming who, why, when and which entries.
Each entry gets a Redrives row keeping its original AttemptCount, LastError and
DeadLetteredAtUtc, and a redrive generation; counters are never reset: the
message gets --redrive-attempts more attempts on top of the ones it had. Entries
are released in batches of --batch, each replay runs under a new claim (a new
ClaimToken), and each entry is closed only after a status check confirms the
provider's result matches the payment. A batch that dead-letters again stops the
redrive: the cause is not fixed, and the history says so.

Try --provider-fixed=false: the first batch fails, the redrive halts, nothing is lost, exit 1.`,
			Example: `  outboxlab session-17-audited-redrive --approver alice --reason "INC-4711: status API restored"
  outboxlab session-17-audited-redrive --batch 1 --batch-interval 5s`,
			FailsWith: []string{"--provider-fixed=false"},
		})
}

// session17Options are the Day 17 pair's parameters. The only default that
// differs is --provider-fixed: the BEFORE story is a redrive while still broken.
type session17Options struct {
	audited bool // which design is this scenario's own: BEFORE (blind) or AFTER (audited)

	Payments        int
	PoisonKeys      []string
	DeclinedKey     string
	MaxAttempts     int
	BaseBackoff     time.Duration
	RedriveAfter    time.Duration
	ProviderFixed   bool
	Approver        string
	Reason          string
	Batch           int
	BatchInterval   time.Duration
	RedriveAttempts int
}

func bindSession17(fs *pflag.FlagSet, audited bool) *session17Options {
	o := &session17Options{audited: audited}
	fs.IntVar(&o.Payments, "payments", 6, "payments to seed, PAY-001 onwards, each with one outbox message")
	fs.StringSliceVar(&o.PoisonKeys, "poison-key", []string{"PAY-002", "PAY-003", "PAY-004"}, "keys whose status check fails until the provider is fixed (comma list)")
	fs.StringVar(&o.DeclinedKey, "declined-key", "PAY-005", `healthy key the provider declines ("none" for no declines)`)
	fs.IntVar(&o.MaxAttempts, "max-attempts", 3, "Day 16 attempts before a message is dead-lettered")
	fs.DurationVar(&o.BaseBackoff, "base-backoff", 200*time.Millisecond, "Day 16 backoff after the first failure; doubles each attempt")
	fs.DurationVar(&o.RedriveAfter, "redrive-after", 30*time.Minute, "when the redrive happens, after the start of the run")
	fs.BoolVar(&o.ProviderFixed, "provider-fixed", audited, "the provider's status API is fixed before the redrive")
	fs.StringVar(&o.Approver, "approver", "ops-oncall", "AFTER: who authorises the redrive (required)")
	fs.StringVar(&o.Reason, "reason", "INC-4711: provider status API restored", "AFTER: why the redrive is safe now (required)")
	fs.IntVar(&o.Batch, "batch", 2, "AFTER: dead letters released per batch")
	fs.DurationVar(&o.BatchInterval, "batch-interval", time.Second, "AFTER: pause between two batches")
	fs.IntVar(&o.RedriveAttempts, "redrive-attempts", 1, "AFTER: attempts a redriven message gets on top of the ones it had")
	return o
}

// maxRedriveAttempts bounds the work of a Day 17 run: the attempts on the
// poison messages in both designs, the Day 16 drain and the redrive together.
const maxRedriveAttempts = 1000

// limits are the Day 17 flags' accepted ranges, with their current values.
func (o *session17Options) limits() []limit {
	return []limit{
		intLimit("payments", o.Payments, minPayments, maxPayments),
		intLimit("max-attempts", o.MaxAttempts, 1, 20),
		durationLimit("base-backoff", o.BaseBackoff, 0, 5*time.Second),
		durationLimit("redrive-after", o.RedriveAfter, time.Millisecond, maxFlagDuration),
		intLimit("batch", o.Batch, 1, 100),
		durationLimit("batch-interval", o.BatchInterval, 0, maxFlagDuration),
		intLimit("redrive-attempts", o.RedriveAttempts, 1, 10),
	}
}

func (o *session17Options) Validate() error {
	if err := checkLimits(o.limits()); err != nil {
		return err
	}
	var err error
	if o.PoisonKeys, o.DeclinedKey, err = poisonFlags(o.PoisonKeys, o.DeclinedKey, o.Payments); err != nil {
		return err
	}
	o.Approver, o.Reason = strings.TrimSpace(o.Approver), strings.TrimSpace(o.Reason)
	switch {
	case o.Approver == "":
		return fmt.Errorf("--approver is required: a redrive needs a named approver")
	case o.Reason == "":
		return fmt.Errorf("--reason is required: a redrive needs a recorded reason")
	}
	// Each poison message is tried MaxAttempts times in the Day 16 drain of
	// both designs, then again: MaxAttempts times after a blind reset, at most
	// --redrive-attempts times plus one verification after an audited release.
	poison := len(o.PoisonKeys)
	if work := poison * (3*o.MaxAttempts + o.RedriveAttempts + 1); work > maxRedriveAttempts {
		return fmt.Errorf("%s × (3 × %d --max-attempts + %d --redrive-attempts + 1) = %d attempts, at most %d: "+
			"fewer --poison-key or fewer attempts", countOf(poison, "poison key", "poison keys"), o.MaxAttempts, o.RedriveAttempts, work, maxRedriveAttempts)
	}
	if s := o.span(); s.tooLong() {
		return fmt.Errorf("the run would move the scenario clock %s: lower --base-backoff, --batch-interval or the attempts", s.text())
	}
	return nil
}

// span is the furthest a Day 17 run moves the scenario clock: the Day 16
// drain's backoffs, the wait for the redrive, then either every batch of the
// redrive with its pause or the backoffs of a redrive that fails again.
func (o *session17Options) span() span {
	drain := span(0).backoffs(o.BaseBackoff, 0, 1, o.MaxAttempts-1)
	s := drain.add(1, o.RedriveAfter)
	batches := (len(o.PoisonKeys) + o.Batch - 1) / o.Batch
	blind := s.backoffs(o.BaseBackoff, 0, 1, o.MaxAttempts-1)
	audited := s.add(int64(max(batches-1, 0)), o.BatchInterval).
		backoffs(o.BaseBackoff, 0, o.MaxAttempts+1, o.MaxAttempts+o.RedriveAttempts-1)
	return max(blind, audited)
}

// session17Run is one design: the Day 16 drain that makes the dead letters,
// then a redrive of them.
type session17Run struct {
	audited        bool
	lines          []string
	events         []worker.Event
	redriveAt      time.Time
	before         map[string]outbox.Message // each dead letter as it stood before the redrive
	deadKeys       []string
	batches        [][]string // audited: the keys released per batch
	notRelease     []string   // audited: dead letters left parked when the redrive halted
	callsAtRedrive int        // calls in the provider's ledger when the redrive began
	ended          time.Time
	ledger         Ledger
	audit          []outbox.AuditEntry
	redrives       []redriveRow
	tables         []outbox.Table
	prov           *provider.Provider
}

func (o *session17Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	return runDay[*session17Run, session17Figures](ctx, env, session17Day, o.audited, o, o.drive)
}

func (o *session17Options) policy() backoff.Policy {
	return backoff.Policy{Backoff: backoff.Backoff{Base: o.BaseBackoff}, DeadLetter: true}
}

func (o *session17Options) drive(ctx context.Context, path string, audited bool) (*session17Run, error) {
	store, err := outbox.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := store.CreateTable(ctx, redrivesSchema); err != nil {
		return nil, fmt.Errorf("create the redrives table: %w", err)
	}
	clk := clock.New()
	if err := SeedDurableOutbox(ctx, store, o.Payments, o.MaxAttempts, clk.Now()); err != nil {
		return nil, err
	}
	run := &session17Run{audited: audited, prov: NewProvider(o.PoisonKeys, o.DeclinedKey)}
	run.lines = append(run.lines, eventLine(clk.Now(), "", fmt.Sprintf(
		"DAY 16: worker-1 drains; MaxAttempts %d, backoff %s × 2^(n-1), dead-letter exit; the status API fails for %s",
		o.MaxAttempts, clock.Millis(o.BaseBackoff), keysText(o.PoisonKeys))))
	w := &worker.Worker{ID: "worker-1", Store: store, Clock: clk, Handler: ConfirmHandler(run.prov), Policy: o.policy(), Batch: 10}
	if err := run.stepUntilIdle(ctx, w, o.stepLimit()); err != nil {
		return nil, err
	}
	if err := o.takeStock(ctx, run, store, clk); err != nil {
		return nil, err
	}
	if audited {
		err = o.auditedRedrive(ctx, run, store, clk)
	} else {
		err = o.blindRedrive(ctx, run, store, clk)
	}
	if err != nil {
		return nil, err
	}
	run.ended = clk.Now()
	return run, o.finish(ctx, run, store)
}

func (o *session17Options) stepLimit() int {
	return o.Payments + len(o.PoisonKeys)*(o.MaxAttempts+o.RedriveAttempts)*3 + 10
}

// stepUntilIdle runs w until nothing is left to claim or wait for.
func (run *session17Run) stepUntilIdle(ctx context.Context, w *worker.Worker, limit int) error {
	for step := 0; ; step++ {
		if step > limit {
			return fmt.Errorf("%s did not settle after %d steps", w.ID, limit)
		}
		res, err := w.Step(ctx)
		if err != nil {
			return err
		}
		run.events = append(run.events, res.Events...)
		for _, e := range res.Events {
			run.lines = append(run.lines, TimelineLine(e))
		}
		if res.Idle {
			return nil
		}
	}
}

// takeStock records the dead letters as they stand, moves the clock to the
// redrive and, if told so, fixes the provider.
func (o *session17Options) takeStock(ctx context.Context, run *session17Run, store *outbox.Store, clk *clock.ScenarioClock) error {
	msgs, err := store.Messages(ctx)
	if err != nil {
		return err
	}
	run.before = map[string]outbox.Message{}
	for _, m := range msgs {
		if m.Status == outbox.DeadLettered {
			run.before[m.Key] = m
			run.deadKeys = append(run.deadKeys, m.Key)
		}
	}
	run.callsAtRedrive = len(run.prov.Calls())
	run.redriveAt = clk.AdvanceTo(clock.Start.Add(o.RedriveAfter))
	state := "is still broken"
	if o.ProviderFixed {
		state = "has been fixed"
		for _, k := range o.PoisonKeys {
			run.prov.Script(k, provider.Rule{Outcome: provider.Paid})
		}
	}
	late := ""
	if run.redriveAt.After(clock.Start.Add(o.RedriveAfter)) {
		late = fmt.Sprintf(" (--redrive-after %s fell inside the Day 16 drain: the redrive starts when it ends)", durationText(o.RedriveAfter))
	}
	run.lines = append(run.lines, eventLine(run.redriveAt, "", fmt.Sprintf(
		"%s parked (%s); the provider's status API %s%s", report.Plural(len(run.deadKeys), "dead letter"), keysText(run.deadKeys), state, late)))
	return nil
}
