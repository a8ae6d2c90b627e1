package wassal

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/changelog"
	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	session13Before = "session-13-pending-lost-on-restart"
	session13After  = "session-13-durable-reconciliation"
)

func init() {
	registerDay(session13Day, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindSession13(fs, after) },
		scenarios.Scenario{
			Summary: "Day 13 BEFORE: timed-out payments remembered only in memory stay pending forever after a crash",
			Long: `Six payment requests reach the service, which writes each payment and charges
the provider. The answers to two charges are lost (PAY-003, PAY-005 time out), so
those payments stay PendingConfirmation and the service keeps a re-check for
each in its memory. The service runs as a real child process of the lab and is
killed with SIGKILL after its last request, before the re-checks fall due. The
restarted service has fresh memory: nothing tells it to ask the provider again,
and the run watches for --observe while the payments stay pending forever, one
of them charged at the provider all along.

The comparison table beside it runs the AFTER design on the same requests.`,
			Example: `  outboxlab session-13-pending-lost-on-restart
  outboxlab session-13-pending-lost-on-restart --crash-after PAY-004   # life 2 remembers PAY-005, not PAY-003`,
			FailsWith:        []string{"--crash-after", "none"},
			NotExercisedWith: []string{"--crash-after", "PAY-002"},
		},
		scenarios.Scenario{
			Summary: "Day 13 AFTER: pending work is durable; after the restart a reconciler asks the provider, never charges again",
			Long: `The same requests, lost answers and crash, with the pending work made durable:
each payment is written, then a re-check row for it in a table of its own
(Rechecks), due --recheck-after later, in a second write; an answered charge
records the answer on the payment, then closes its row. The child process is
killed at the same point, after a whole request, never between the two writes.
The restarted service finds the re-check rows on disk and its reconciler asks
the provider for each payment's status when due. It never charges again, and
every payment ends Paid or Failed, with a provider transaction id only when Paid.

Day 13's fix is durability. A crash between the payment and its re-check row
would still lose the pending work: writing both in one transaction, the
transactional outbox, is Day 14's lesson (session-14-transactional-outbox).

Switch the reconciler off with --reconciler=false to watch the safety checks catch it.`,
			Example: `  outboxlab session-13-durable-reconciliation
  outboxlab session-13-durable-reconciliation --timeout-key PAY-001,PAY-002,PAY-006`,
			FailsWith:        []string{"--reconciler=false"},
			NotExercisedWith: []string{"--crash-after", "none"},
		})
}

// session13Options are the Day 13 pair's parameters; both scenarios take all
// of them, because each report compares both designs on the same requests.
type session13Options struct {
	scenarios.Declared
	after   bool // which design is this scenario's own: BEFORE (memory) or AFTER (durable)
	verbose bool // the run's --verbose: the Rechecks table in full

	Payments     int
	TimeoutKeys  []string
	DeclinedKey  string
	CrashAfter   string
	RecheckAfter time.Duration
	Downtime     time.Duration
	Observe      time.Duration
	Reconciler   bool
}

func bindSession13(fs *pflag.FlagSet, after bool) *session13Options {
	o := &session13Options{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Payments, "payments", 6, minPayments13, maxPayments, "payment requests, PAY-001 onwards, 100 ms apart")
	f.Strings(&o.TimeoutKeys, "timeout-key", []string{"PAY-003", "PAY-005"}, scenarios.WordLength, `keys whose charge answer is lost: the provider takes the charge, the service times out ("none" for none)`)
	f.String(&o.DeclinedKey, "declined-key", "PAY-005", scenarios.WordLength, `key the provider declines ("none" for no declines)`)
	f.String(&o.CrashAfter, "crash-after", "PAY-006", scenarios.WordLength, `the service process is killed right after this key's request ("none": it never crashes)`)
	f.Duration(&o.RecheckAfter, "recheck-after", 5*time.Second, time.Millisecond, maxFlagDuration, "how long after a lost answer the service asks the provider for the status")
	f.Duration(&o.Downtime, "downtime", 3*time.Second, 0, maxFlagDuration, "time between the crash and the restart")
	f.Duration(&o.Observe, "observe", time.Minute, time.Millisecond, maxFlagDuration, "how long the run watches after the restart and the last request")
	f.Bool(&o.Reconciler, "reconciler", true, "AFTER: the restarted service runs the reconciler (--reconciler=false leaves the rows unread)")
	return o
}

// Validate refuses what cannot run. A watch shorter than the re-check delay
// is accepted: the re-checks then fall due after the run stops watching, and
// the report says so.
func (o *session13Options) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	var err error
	if o.TimeoutKeys, err = keysFlag("timeout-key", o.TimeoutKeys, o.Payments); err != nil {
		return err
	}
	if o.DeclinedKey, err = keyFlag("declined-key", o.DeclinedKey, o.Payments); err != nil {
		return err
	}
	o.CrashAfter, err = keyFlag("crash-after", o.CrashAfter, o.Payments)
	return err
}

// watchFrom is when the watch starts after a restart at restartAt: once
// life 2 has also taken the last request.
func (o *session13Options) watchFrom(restartAt time.Time) time.Time {
	return later(restartAt, requestTime(o.Payments))
}

// session13Run is one design driven to its end: a first life in a child
// process, killed at the crash point, and a restarted life in this process.
type session13Run struct {
	durable    bool
	lines      []string
	crashed    bool
	crashIndex int // the request after which life 1 died; 0 without a crash
	crashAt    time.Time
	restartAt  time.Time
	windowEnd  time.Time
	// What the crash left on disk, read with fresh connections before life 2 starts.
	pendingAtCrash []string // payments PendingConfirmation
	rowsAtCrash    []string // the keys of the re-check rows waiting in the outbox
	ledger         Ledger
	rechecks       []recheckRow // the durable design's Rechecks table at the end
	tables         []outbox.Table
	prov           *provider.Provider
}

func (o *session13Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	o.verbose = env.Verbose
	return runDay[*session13Run, session13Metrics](ctx, env, session13Day, o.after, o, o.drive)
}

func (o *session13Options) newProvider() *provider.Provider {
	p := provider.New(provider.Rule{Outcome: provider.Paid})
	if o.DeclinedKey != "" {
		p.Script(o.DeclinedKey, provider.Rule{Outcome: provider.Declined})
	}
	return p
}

func (o *session13Options) drive(ctx context.Context, database dialect.Database, durable bool) (*session13Run, error) {
	store, err := openSession13(ctx, database, durable) // creates the schema; each life opens its own connections
	if err != nil {
		return nil, err
	}
	store.Close()
	prov := o.newProvider()
	srv, err := provider.Serve(prov, o.TimeoutKeys)
	if err != nil {
		return nil, err
	}
	defer srv.Close()

	run := &session13Run{durable: durable, crashIndex: keyIndex(o.CrashAfter), prov: prov}
	run.crashed = run.crashIndex > 0
	last := o.Payments
	if run.crashed {
		last = run.crashIndex
		run.crashAt = requestTime(run.crashIndex)
		run.restartAt = run.crashAt.Add(o.Downtime)
		run.windowEnd = o.watchFrom(run.restartAt).Add(o.Observe)
	} else {
		run.windowEnd = requestTime(o.Payments).Add(o.Observe)
	}
	if err := changelog.Seeded(ctx, clock.Start); err != nil {
		return nil, err
	}
	logged, err := changelog.ForChild(ctx) // life 1 writes its rows itself: it records its own events
	if err != nil {
		return nil, err
	}
	exit, err := child.Run(ctx, session13Child, append([]string{"-db", database.String(), "-provider", srv.URL,
		"-durable=" + strconv.FormatBool(durable), "-life", "1", "-first", "1", "-last", strconv.Itoa(last),
		"-crash-after", o.CrashAfter, "-recheck-after", o.RecheckAfter.String(),
		"-reconcile=" + strconv.FormatBool(o.Reconciler), "-window-end", clock.ISO(run.windowEnd)}, logged.Args()...)...)
	if err != nil {
		return nil, fmt.Errorf("run service life 1: %w", err)
	}
	if err := logged.Merge(ctx, requestTime(last)); err != nil {
		return nil, err
	}
	run.lines = outputLines(exit.Output)
	switch {
	case run.crashed && !exit.Died():
		return nil, fmt.Errorf("service life 1 should have been killed after %s, but it exited with code %d", o.CrashAfter, exit.Code)
	case !run.crashed && exit.Code != 0:
		return nil, fmt.Errorf("service life 1 exited with code %d", exit.Code)
	}

	if store, err = Day(13).OpenExisting(ctx, database); err != nil { // fresh connections: the restart
		return nil, err
	}
	defer store.Close()
	if run.crashed {
		if err := o.restart(ctx, run, store, srv.URL); err != nil {
			return nil, err
		}
	}
	return run, o.finish(ctx, run, store)
}

// restart measures what the crash left on disk, then runs life 2 in this
// process: fresh memory, fresh connections, the rest of the requests.
func (o *session13Options) restart(ctx context.Context, run *session13Run, store *outbox.Store, url string) error {
	pays, err := store.Payments(ctx)
	if err != nil {
		return err
	}
	run.pendingAtCrash = pendingKeys(pays)
	if run.durable {
		rows, err := readRechecks(ctx, store)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.status == recheckPending {
				run.rowsAtCrash = append(run.rowsAtCrash, r.key)
			}
		}
	}
	text := fmt.Sprintf("on disk: %s PendingConfirmation; nothing tells life 2 to ask", keysText(run.pendingAtCrash))
	if run.durable {
		text = "re-check rows waiting on disk (Rechecks): " + countWith(run.rowsAtCrash)
	}
	if err := run.tell(ctx, run.restartAt, "RESTART: life 2 starts with fresh memory and fresh connections", text); err != nil {
		return err
	}

	var out strings.Builder
	svc := &session13Service{durable: run.durable, life: 2, store: store, provider: provider.NewClient(url),
		clock: clock.NewAt(run.restartAt), recheck: o.RecheckAfter, reconcile: o.Reconciler, out: &out}
	if err := svc.serve(ctx, run.crashIndex+1, o.Payments, "", run.windowEnd); err != nil {
		return fmt.Errorf("run service life 2: %w", err)
	}
	run.lines = append(run.lines, outputLines(out.String())...)
	return nil
}

// finish closes the observation window and reads the final state.
func (o *session13Options) finish(ctx context.Context, run *session13Run, store *outbox.Store) error {
	var err error
	if run.ledger, err = ReadLedger(ctx, store, run.prov); err != nil {
		return err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return err
	}
	if run.durable {
		if run.rechecks, err = readRechecks(ctx, store); err != nil {
			return err
		}
	}
	checks := 0
	for _, k := range run.pendingAtCrash {
		checks += callsAfter(run.ledger.Calls, provider.OpStatusCheck, k, run.restartAt)
	}
	pending := pendingKeys(run.ledger.Payments)
	texts := []string{fmt.Sprintf("observation ends: %s still PendingConfirmation (%s)", report.Plural(len(pending), "payment"), keysText(pending))}
	if run.crashed {
		texts = append(texts, fmt.Sprintf("status checks since the restart for the payments pending at the crash: %d", checks))
	}
	return run.tell(ctx, run.windowEnd, texts...)
}

// tell adds the lab's own lines at to the timeline, and each to the change
// log as an event.
func (run *session13Run) tell(ctx context.Context, at time.Time, texts ...string) error {
	for _, t := range texts {
		line := eventLine(at, "", t)
		run.lines = append(run.lines, line)
		if err := changelog.Event(ctx, at, line); err != nil {
			return err
		}
	}
	return nil
}
