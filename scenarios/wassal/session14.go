package wassal

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/changelog"
	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

const (
	session14Before = "session-14-dual-write-loses-message"
	session14After  = "session-14-transactional-outbox"
)

func init() {
	registerDay(session14Day, func(fs *pflag.FlagSet, after bool) scenarios.Options { return bindSession14(fs, after) },
		scenarios.Scenario{
			Summary: "Day 14 BEFORE: payment and message written separately; a crash between them loses work or leaves a ghost",
			Long: `Six payment requests; each writes a payment row and its ConfirmPaymentStatus
outbox row as two separate transactions (the dual write). Each life of the
service is a real child process. Life 1 writes the payment first and is killed
between the two writes of PAY-002: a payment with no message, which nobody will
ever confirm (lost work). The redeployed life 2 "fixes" it by writing the
message first, and is killed between the writes of PAY-004: a message for a
payment that was never committed (a ghost), which the outbox relay then takes to
the provider. Either order of a dual write loses.

The comparison table beside it runs the AFTER design on the same seed.`,
			Example: `  outboxlab session-14-dual-write-loses-message
  outboxlab session-14-dual-write-loses-message --crash-at PAY-001,PAY-006`,
			FailsWith:        []string{"--crash-at", "none"},
			NotExercisedWith: []string{"--crash-at", "PAY-002"},
		},
		scenarios.Scenario{
			Summary: "Day 14 AFTER: the payment row and its outbox row commit in one transaction: both or neither",
			Long: `The same requests, the same two service versions and the same crash points, with
the payment row and the outbox row written in one transaction. The child process
is killed inside the open transaction, after the first insert; the database
discards the uncommitted write, so each crashed request leaves nothing at all
(the client was told it failed, and may safely retry). After the restart
every payment has exactly one outbox row, there are no ghosts, and the relay
confirms every payment with the provider.

Switch the transaction off with --one-transaction=false to watch the safety checks catch it.`,
			Example: `  outboxlab session-14-transactional-outbox
  outboxlab session-14-transactional-outbox --crash-at PAY-001,PAY-003,PAY-005`,
			FailsWith:        []string{"--one-transaction=false"},
			NotExercisedWith: []string{"--crash-at", "none"},
		})
}

// restartDelay is how long a crashed life of the service stays down.
const restartDelay = time.Second

// session14Options are the Day 14 pair's parameters.
type session14Options struct {
	scenarios.Declared
	after bool // which design is this scenario's own: BEFORE (dual write) or AFTER (one transaction)

	Payments       int
	CrashAt        []string
	DeclinedKey    string
	OneTransaction bool
}

func bindSession14(fs *pflag.FlagSet, after bool) *session14Options {
	o := &session14Options{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Payments, "payments", 6, minPayments, maxPayments, "payment requests, PAY-001 onwards, 100 ms apart")
	f.Strings(&o.CrashAt, "crash-at", []string{"PAY-002", "PAY-004"}, scenarios.WordLength, `keys whose request the service dies in, between its two writes; each crash ends a life ("none" for no crash)`)
	f.String(&o.DeclinedKey, "declined-key", "PAY-005", scenarios.WordLength, `key the provider declines ("none" for no declines)`)
	f.Bool(&o.OneTransaction, "one-transaction", true, "AFTER: payment and outbox row in one transaction (--one-transaction=false: the dual write)")
	return o
}

// maxCrashes bounds --crash-at: every crash ends a life of the service, and
// every life is a real child process, in each of the two designs a report runs.
const maxCrashes = 10

func (o *session14Options) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	var err error
	if o.CrashAt, err = keysFlag("crash-at", o.CrashAt, o.Payments); err != nil {
		return err
	}
	if len(o.CrashAt) > maxCrashes {
		return fmt.Errorf("--crash-at lists %d keys, at most %d: each crash is one more child process", len(o.CrashAt), maxCrashes)
	}
	slices.SortFunc(o.CrashAt, func(a, b string) int { return keyIndex(a) - keyIndex(b) })
	o.DeclinedKey, err = keyFlag("declined-key", o.DeclinedKey, o.Payments)
	return err
}

// atomicFor says whether a design writes in one transaction.
func (o *session14Options) atomicFor(design bool) bool { return design && o.OneTransaction }

// session14Run is one design driven to its end: one child process per life,
// then the relay in this process with fresh connections.
type session14Run struct {
	atomic   bool
	serialDB bool // the run's database's writers take turns (SQLite)
	lines    []string
	events   []worker.Event
	ended    time.Time
	ghosts   []string // read right after the last life, before the relay ran
	lost     []string
	ledger   Ledger
	tables   []outbox.Table
	prov     *provider.Provider
	relayAt  time.Time
}

func (o *session14Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	drive := func(ctx context.Context, db dialect.Database, after bool) (*session14Run, error) {
		return o.drive(ctx, db, o.atomicFor(after))
	}
	return runDay[*session14Run, session14Metrics](ctx, env, session14Day, o.after, o, drive)
}

func (o *session14Options) drive(ctx context.Context, database dialect.Database, atomic bool) (*session14Run, error) {
	store, err := Day(14).Open(ctx, database) // creates Day 14's schema; each life opens its own connections
	if err != nil {
		return nil, err
	}
	store.Close()
	run := &session14Run{atomic: atomic, serialDB: serialWriters(store)}
	start, first := clock.Start, 1
	for life := 1; first <= o.Payments; life++ {
		crash, last := "", o.Payments
		if life <= len(o.CrashAt) {
			crash = o.CrashAt[life-1]
			last = keyIndex(crash)
		}
		order := paymentFirst
		if life > 1 {
			order = messageFirst
		}
		exit, err := child.Run(ctx, session14Child, "-db", database.String(), "-day", "14", "-atomic="+strconv.FormatBool(atomic), "-order", order,
			"-life", strconv.Itoa(life), "-first", strconv.Itoa(first), "-last", strconv.Itoa(last),
			"-crash-at", crash, "-start", clock.ISO(start))
		if err != nil {
			return nil, fmt.Errorf("run service life %d: %w", life, err)
		}
		run.lines = append(run.lines, outputLines(exit.Output)...)
		if crash == "" {
			if exit.Code != 0 {
				return nil, fmt.Errorf("service life %d exited with code %d", life, exit.Code)
			}
			run.ended = later(requestTime(last), start)
			break
		}
		if !exit.Died() {
			return nil, fmt.Errorf("service life %d should have been killed in %s, but it exited with code %d", life, crash, exit.Code)
		}
		start = later(requestTime(last), start).Add(restartDelay)
		run.ended = start
		run.lines = append(run.lines, eventLine(start, "", fmt.Sprintf(
			"RESTART: life %d (%s) starts as a new process; the client was told %s failed", life+1, messageFirst, crash)))
		first = last + 1
	}
	return run, o.relay(ctx, run, database)
}

// relay opens fresh connections, reads what the lives left behind, and drains
// the outbox with the relay worker, which asks the provider about each message.
func (o *session14Options) relay(ctx context.Context, run *session14Run, db dialect.Database) error {
	store, err := Day(14).OpenExisting(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	if run.lost, run.ghosts, err = halfWrites(ctx, store); err != nil {
		return err
	}
	run.prov = provider.New(provider.Rule{Outcome: provider.Paid})
	if o.DeclinedKey != "" {
		run.prov.Script(o.DeclinedKey, provider.Rule{Outcome: provider.Declined})
	}
	clk := clock.NewAt(run.ended)
	run.relayAt = clk.Now()
	run.lines = append(run.lines, eventLine(run.relayAt, "", fmt.Sprintf(
		"RELAY: the outbox worker drains; on disk: %s without a message (%s), %s without a payment (%s)",
		report.Plural(len(run.lost), "payment"), keysText(run.lost), report.Plural(len(run.ghosts), "message"), keysText(run.ghosts))))
	w := &worker.Worker{ID: "relay-1", Store: store, Clock: clk, Handler: confirmOrGhost(run.prov, store), Batch: 10}
	if err := changelog.Seeded(ctx, clk.Now()); err != nil { // the change log starts with what the lives left
		return err
	}
	for step := 0; ; step++ {
		if step > 10*o.Payments+10 {
			return fmt.Errorf("the relay did not settle after %d steps", step)
		}
		res, err := w.Step(ctx)
		if err != nil {
			return err
		}
		run.events = append(run.events, res.Events...)
		for _, e := range res.Events {
			run.lines = append(run.lines, TimelineLine(e))
		}
		if err := recordStep(ctx, clk.Now(), res.Events, TimelineLine); err != nil {
			return err
		}
		if res.Idle {
			break
		}
	}
	if run.ledger, err = ReadLedger(ctx, store, run.prov); err != nil {
		return err
	}
	run.tables, err = store.Tables(ctx)
	return err
}

// halfWrites finds payments with no outbox row (lost work) and outbox rows
// with no payment (ghosts).
func halfWrites(ctx context.Context, store *outbox.Store) (lost, ghosts []string, err error) {
	for _, q := range []struct {
		dst *[]string
		sql string
	}{
		{&lost, `SELECT PaymentKey FROM Payments p WHERE NOT EXISTS
		           (SELECT 1 FROM OutboxMessages m WHERE m.MessageKey = p.PaymentKey) ORDER BY Id`},
		{&ghosts, `SELECT MessageKey FROM OutboxMessages m WHERE NOT EXISTS
		           (SELECT 1 FROM Payments p WHERE p.PaymentKey = m.MessageKey) ORDER BY Id`},
	} {
		rows, err := store.Query(ctx, store.DB(), q.sql)
		if err != nil {
			return nil, nil, fmt.Errorf("find half-written requests: %w", err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("find half-written requests: %w", err)
			}
			*q.dst = append(*q.dst, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, fmt.Errorf("find half-written requests: %w", err)
		}
	}
	return lost, ghosts, nil
}

// confirmOrGhost is the relay's handler: confirmVia, saying so when the
// message belongs to a payment our books do not have.
func confirmOrGhost(p *provider.Provider, store *outbox.Store) worker.Handler {
	confirm := confirmVia(p)
	return worker.HandlerFunc(func(ctx context.Context, c outbox.Claim, now time.Time) (worker.Outcome, error) {
		out, err := confirm.Handle(ctx, c, now)
		if err != nil {
			return out, err
		}
		var n int
		err = store.QueryRow(ctx, store.DB(), `SELECT COUNT(*) FROM Payments WHERE PaymentKey = ?`, c.Key).Scan(&n)
		if err != nil {
			return out, fmt.Errorf("look up payment %s: %w", c.Key, err)
		}
		if n == 0 {
			out.Detail += " — GHOST: no payment " + c.Key + " on our books, the answer is recorded nowhere"
		}
		return out, nil
	})
}
