package wassal

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
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
	registerDay(session17Day, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindSession17(fs, after) },
		scenarios.Scenario{
			Summary: "Day 17 BEFORE: from Day 16's end, a blind reset of the dead letter to Pending, AttemptCount 0, no record",
			Long: `Starts where Day 16 ends: its AFTER scenario (session-16-retry-with-dead-letter)
is run by its own code, and leaves one dead letter, PAY-003, the poison message
whose status check failed MaxAttempts times. Thirty minutes later, the provider
fixed, someone "redrives" it with one UPDATE: Status back to Pending,
AttemptCount 0, LastError and DeadLetteredAtUtc cleared, no approver, no
reason, no record. The payment ends as Day 16 says, and yet the row claims one
attempt where four were made: the failure history is gone, and nothing says
who reset it or why. That happens whether the provider is fixed or not.

With --provider-fixed=false the cause is not fixed either: the poison loop
runs again and dead-letters it a second time, the row claiming three attempts
where six were made. --more-dead-letters adds keys whose status check failed
during Day 16's drain too, so that several dead letters are reset at once;
released all at once, they can flood the provider past its capacity
(--provider-capacity per --provider-window), which throttles them.

The comparison table beside it runs the AFTER design from the same start.`,
			Example: `  outboxlab session-17-blind-redrive
  outboxlab session-17-blind-redrive --provider-fixed=false --more-dead-letters PAY-002,PAY-004`,
			FailsWith:        []string{"--poison-key", "none"},
			NotExercisedWith: []string{"--poison-key", "none"},
		},
		scenarios.Scenario{
			Summary: "Day 17 AFTER: from Day 16's end, an authorised, audited redrive in bounded batches, verified before closing",
			Long: `Starts where Day 16 ends (its AFTER scenario, run by its own code): one dead
letter, PAY-003, redriven the safe way once the provider is fixed. Day 16 says
PAY-003 is a would-be Failed payment, so dead-lettering it lost no money: once
fixed, the provider's status check says Declined, and the redrive ends with
the payment Failed, no transaction id, nothing charged.

The redrive needs an approver and a reason (--approver, --reason; empty is
refused with exit 2) and writes an audit record naming who, why, when and
which entries. Each entry gets a Redrives row keeping its original
AttemptCount, LastError and DeadLetteredAtUtc, and a redrive generation;
counters are never reset: the message gets --redrive-attempts more attempts on
top of the ones it had. Entries are released in batches of --batch, each
replay runs under a new claim (a new ClaimToken), and each entry is closed
only after a status check confirms the provider's result matches the payment.
A batch that dead-letters again stops the redrive: the cause is not fixed,
and the history says so.

One dead letter makes one batch. To watch batches, add dead letters with
--more-dead-letters: their status check failed during Day 16's drain too, and
once the provider is fixed they pay.

The provider takes at most --provider-capacity status checks in any
--provider-window: the batching is judged by its ledger, which throttles
what comes faster. Try --more-dead-letters PAY-001,PAY-002,PAY-004 --batch 100:
one batch of four floods it, and the check fails.

Try --provider-fixed=false: the first batch fails again, the redrive halts
after it with the history kept (and the rest parked, when one batch did not
release them all: add --more-dead-letters PAY-002,PAY-004 --batch 1), and the
incident stays open; the mechanism held, so the run passes, as Day 17's grade
says of the same halt. Nothing closes there, so "verified with the provider
before closing", a rule for every closing, reads N/A; and the reason, which
said the redrive was safe now, is recorded but not accepted: the run
contradicts it. --keep-counters=false switches off a part
of it (AttemptCount reset to 0 on release, as the blind UPDATE does): the
counters check fails, exit 1.`,
			Example: `  outboxlab session-17-audited-redrive --approver alice --reason "INC-4711: status API restored"
  outboxlab session-17-audited-redrive --more-dead-letters PAY-002,PAY-004 --batch 1`,
			FailsWith:        []string{"--keep-counters=false"},
			NotExercisedWith: []string{"--poison-key", "none"},
		})
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
	throttle       *provider.Throttle // the provider's capacity from the redrive on, and its ledger
}

// status is the provider as the redrive meets it: behind its capacity. A
// status check the throttle does not admit fails (429) and never reaches
// the provider; the throttle's ledger keeps it.
func (run *session17Run) status(op string) statusChecker {
	return throttledStatus{run.prov, run.throttle, op}
}

// The ops a Day 17 run asks the provider for, as the throttle's ledger keeps them.
const (
	opAttempt = "attempt"      // a worker's attempt at a message
	opVerify  = "verification" // the audited redrive's check before closing
)

type throttledStatus struct {
	p  *provider.Provider
	t  *provider.Throttle
	op string
}

func (s throttledStatus) CheckStatus(ctx context.Context, key string, at time.Time) (provider.Answer, error) {
	if !s.t.AdmitOp(s.op, key, at) {
		return provider.Answer{}, fmt.Errorf("status check for %s throttled: the provider takes %s (429)", key, s.t.Text())
	}
	return s.p.CheckStatus(ctx, key, at)
}

func (o *session17Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	o.verbose = env.Verbose
	return runDay[*session17Run, session17Metrics](ctx, env, o.day(), o.after, o, o.drive)
}

func (o *session17Options) policy() backoff.Policy {
	return backoff.Policy{Backoff: backoff.Backoff{Base: o.BaseBackoff}, DeadLetter: true}
}

// drive starts from Day 16 AFTER's end state, built on the run's database by
// Day 16's own code, then redrives its dead letters: blindly, or audited.
func (o *session17Options) drive(ctx context.Context, db dialect.Database, audited bool) (*session17Run, error) {
	day16, err := o.day16.drive(ctx, db, false)
	if err != nil {
		return nil, fmt.Errorf("run Day 16 AFTER: %w", err)
	}
	store, err := Day(17).Open(ctx, db) // Day 16's tables, and Day 17's AuditLog
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := store.CreateTable(ctx, redrivesSchema); err != nil {
		return nil, fmt.Errorf("create the redrives table: %w", err)
	}
	clk := clock.NewAt(day16.ended)
	run := &session17Run{audited: audited, prov: day16.prov, events: day16.events, throttle: provider.NewThrottle(o.Capacity, o.Window)}
	run.lines = o.day16Lines(day16)
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

// day16Lines tell Day 16's drain in short: one line for the design, the
// attempts of the messages it dead-lettered, one line for the rest.
func (o *session17Options) day16Lines(day16 *session16Run) []string {
	lines := []string{eventLine(day16.started, "", fmt.Sprintf("DAY 16 AFTER, by its own code: MaxAttempts %d, backoff %s × 2^(n-1)",
		o.MaxAttempts, clock.Millis(o.BaseBackoff)))}
	dead := o.deadLetterKeys()
	others := 0
	for _, e := range day16.events {
		switch {
		case slices.Contains(dead, e.Key):
			lines = append(lines, attemptLine(e))
		case e.Kind == worker.Processed:
			others++
		}
	}
	paid, failed := paidFailed(day16.ledger.Payments)
	return append(lines, eventLine(day16.ended, "", fmt.Sprintf("Day 16 ends: %s Processed (%d Paid, %d Failed), %s",
		report.Plural(others, "other message"), paid, failed, report.Plural(len(dead), "dead letter"))))
}

func (o *session17Options) stepLimit() int {
	return o.Payments + len(o.deadLetterKeys())*(o.MaxAttempts+o.RedriveAttempts)*3 + 10
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
			run.lines = append(run.lines, attemptLine(e))
		}
		if err := recordStep(ctx, w.Clock.Now(), res.Events, attemptLine); err != nil {
			return err
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
		// Day 16's poison message is a would-be Failed payment, as Day 16
		// says: once fixed, the provider answers Declined. The more dead
		// letters are payments the provider took: they pay.
		for _, k := range o.PoisonKeys {
			run.prov.Script(k, provider.Rule{Outcome: provider.Declined})
		}
		for _, k := range o.MoreDeadLetters {
			run.prov.Script(k, provider.Rule{Outcome: provider.Paid})
		}
	}
	late := ""
	if run.redriveAt.After(clock.Start.Add(o.RedriveAfter)) {
		late = fmt.Sprintf("--redrive-after %s fell inside the Day 16 drain: the redrive starts when it ends", durationText(o.RedriveAfter))
	}
	run.lines = append(run.lines, eventLine(run.redriveAt, "", fmt.Sprintf("parked: %s; the provider's status API %s", keysText(run.deadKeys), state)))
	if late != "" {
		run.lines = append(run.lines, eventLine(run.redriveAt, "", late))
	}
	return nil
}

// attemptLine is TimelineLine, shorter for a failed attempt, whose error the
// setup names and the Redrives ledger keeps: one line within the terminal.
func attemptLine(e worker.Event) string {
	head := "attempt " + attemptOf(e.Attempt, e.MaxAttempts) + "  FAILED"
	switch {
	case e.Kind == worker.DeadLettered:
		return eventLine(e.At, e.Key, head+" → limit reached → DEAD-LETTERED (LastError recorded)")
	case e.Kind == worker.Retrying && e.Delay > 0:
		return eventLine(e.At, e.Key, fmt.Sprintf("%s → backoff %s → NextAttempt = %s", head, clock.Millis(e.Delay), clock.Stamp(e.NextAttempt)))
	}
	return TimelineLine(e)
}
