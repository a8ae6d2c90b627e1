package retry

import (
	"context"
	"database/sql"
	"fmt"
	"outboxlab/core/changelog"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// visibilityOptions are the pair's parameters. Both scenarios take all of
// them, because each report compares both designs on the same seed.
type visibilityOptions struct {
	scenarios.Declared
	after bool // this scenario's own design is the AFTER one

	Consumers     int
	Healthy       int
	FlakyFailures int
	Visibility    time.Duration
	BaseBackoff   time.Duration
	MaxBackoff    time.Duration
	MaxAttempts   int
	TimeBudget    time.Duration
	Hang          time.Duration
	OnQueue       bool

	verbose bool // the full ledgers (--verbose)
}

// bindVisibility declares the pair's flags. --max-backoff may not be below
// --base-backoff: its declared minimum is --base-backoff's default, and
// --base-backoff's maximum is --max-backoff's default (backoffCap). Every
// combination within them is also held to maxVisibilitySends by Validate.
func bindVisibility(fs *pflag.FlagSet, after bool) *visibilityOptions {
	o := &visibilityOptions{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Consumers, "consumers", 4, 1, 20, "consumer processes polling the outbox")
	f.Int(&o.Healthy, "healthy", 4, 0, 50, "healthy notifications queued behind the three troubled ones")
	f.Int(&o.FlakyFailures, "flaky-failures", 3, 0, 20, "sends of NTF-001 that fail before it goes through")
	f.Int(&o.MaxAttempts, "max-attempts", 5, 1, 50, "retry budget: attempts before a message is dead-lettered")
	f.Duration(&o.Visibility, "visibility-timeout", 30*time.Second, time.Millisecond, time.Hour,
		"how long a claim hides a message from other consumers (the lease)")
	base := f.Duration(&o.BaseBackoff, "base-backoff", 5*time.Second, time.Millisecond, time.Minute,
		"backoff after the first failed send; doubles each attempt")
	ceiling := f.Duration(&o.MaxBackoff, "max-backoff", time.Minute, 5*time.Second, time.Hour, "cap on any one backoff")
	backoffCap{"base-backoff", "max-backoff", &o.BaseBackoff, &o.MaxBackoff}.relate(base, ceiling, time.Millisecond, time.Hour, time.Millisecond, time.Hour)
	f.Duration(&o.TimeBudget, "time-budget", 2*time.Minute, time.Millisecond, 24*time.Hour,
		"time budget: no attempt starts later than this after the first delivery")
	f.Duration(&o.Hang, "hang", 25*time.Second, sendTime, time.Hour, "how long a send of NTF-003 hangs before it times out")
	f.Bool(&o.OnQueue, "backoff-on-queue", true, "AFTER: back off on the queue (=false: hold the message)")
	return o
}

// sendTime is how long a send takes when it does not hang.
const sendTime = time.Second

func (o *visibilityOptions) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	if n := o.maxSends(); n > maxVisibilitySends {
		going := fmt.Sprintf("shorter than --hang %s, so the hanging message goes round", clockText(o.Hang))
		if o.Visibility < sendTime {
			going = fmt.Sprintf("shorter than a send (%s), so every message can go round", clockText(sendTime))
		}
		return fmt.Errorf("--visibility-timeout %s is %s until the %s demo cap: up to %d sends with %d consumers, "+
			"more than the %d this lab runs; raise --visibility-timeout or lower --consumers or --time-budget",
			clockText(o.Visibility), going, clockText(o.horizon()), n, o.Consumers, maxVisibilitySends)
	}
	return nil
}

// maxVisibilitySends bounds the sends of an invocation (both designs): each
// costs a few small transactions, and the bound is loose by about half:
// the runs it admits take a second or so.
const maxVisibilitySends = 6000

// maxSends bounds the gateway sends of one invocation, both designs, from the
// flags alone, whatever the consumers do:
//   - A send takes at least sendTime and a consumer makes one at a time, so
//     no design makes more than consumers × (horizon / sendTime + 1) before
//     the demo cap stops it.
//   - When the lease outlasts a one-second send, no claim of a message that
//     does not hang is lost during its send: every delivery raises
//     AttemptCount, and the retry budget ends the message within
//     --max-attempts deliveries. A failing message is then sent at most
//     1 + 2 + … + max-attempts times (a held consumer resends with the
//     attempt it holds), a flaky one flaky-failures + max-attempts times, a
//     healthy one once. The hanging message is bounded the same way when the
//     lease outlasts --hang too; otherwise by consumers × (horizon / hang + 1).
func (o *visibilityOptions) maxSends() int64 {
	perDesign := int64(o.Consumers) * (int64(o.horizon()/sendTime) + 1)
	if o.Visibility >= sendTime {
		m := int64(o.MaxAttempts)
		hanging := m * (m + 1) / 2
		if o.Visibility < o.Hang {
			hanging = int64(o.Consumers) * (int64(o.horizon()/o.Hang) + 1)
		}
		perDesign = min(perDesign, int64(o.Healthy)+int64(o.FlakyFailures)+m+m*(m+1)/2+hanging)
	}
	return 2 * perDesign
}

func (o *visibilityOptions) backoff() backoff.Backoff {
	return backoff.Backoff{Base: o.BaseBackoff, Cap: o.MaxBackoff}
}

func (o *visibilityOptions) budget() backoff.Budget {
	return backoff.Budget{MaxAttempts: o.MaxAttempts, MaxElapsed: o.TimeBudget}
}

// scripts is the queue, oldest first: three troubled notifications, then the healthy ones.
func (o *visibilityOptions) scripts() []script {
	out := []script{flaky, failing, hanging}
	for range o.Healthy {
		out = append(out, healthy)
	}
	return out
}

func (o *visibilityOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	o.verbose = env.Verbose
	drive := func(ctx context.Context, db dialect.Database, after bool) (*pairRun, error) {
		return o.drive(ctx, db, !after || !o.OnQueue)
	}
	return o.pairReport().run(ctx, env, drive)
}

// drive seeds a fresh outbox and runs the consumers of one design to the end.
func (o *visibilityOptions) drive(ctx context.Context, db dialect.Database, held bool) (*pairRun, error) {
	store, err := outbox.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	clk := clock.New()
	gw := newGateway(sendTime, o.Hang)
	gw.failFirst = o.FlakyFailures
	err = store.InTx(ctx, func(tx *sql.Tx) error {
		for i, sc := range o.scripts() {
			gw.scripts[noteKey(i+1)] = sc
			if _, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: noteKey(i + 1), Type: notificationType,
				MaxAttempts: o.MaxAttempts, CreatedAt: clk.Now()}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("seed the outbox: %w", err)
	}
	if err := changelog.Seeded(ctx, clk.Now()); err != nil {
		return nil, err
	}
	run := &pairRun{held: held, gw: gw}
	consumers := make([]*consumer, o.Consumers)
	for i := range consumers {
		consumers[i] = &consumer{id: "worker-" + strconv.Itoa(i+1)}
	}
	s := &sim{o: o, store: store, clock: clk, run: run, first: map[int64]time.Time{}}
	if err := s.drive(ctx, consumers); err != nil {
		return nil, err
	}
	if run.msgs, err = store.Messages(ctx); err != nil {
		return nil, err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return nil, err
	}
	if run.audit, err = store.Audit(ctx); err != nil {
		return nil, err
	}
	run.refused = store.Refused()
	run.exits = exitsOf(run.audit)
	run.read = o.metrics(run)
	return run, nil
}
