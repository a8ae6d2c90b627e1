package retry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const poisonCounter = "poison-counter"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    poisonCounter,
		Family:  "retry",
		Kind:    report.Experiment,
		Summary: "A message that kills the consumer process: the attempt counter incremented on catch vs at delivery",
		Long: `The course's poison-counter experiment, with real process deaths. Each consumer
lifetime is a child process of the lab that claims notifications from the
outbox (a SQLite file, or a PostgreSQL schema), oldest first. The lethal message kills it with SIGKILL: no catch block,
no deferred function runs. A supervisor restarts the consumer after the
visibility timeout has given the message back to the queue.

With the counter incremented in the catch block, the threshold is never
reached: every lifetime dies on the same message and only --max-restarts stops
the loop. With the counter incremented at delivery, committed with the claim
before any work, the message is dead-lettered on delivery number --threshold
and the messages behind it are processed. Both runs use their own database
and print the course's table from what those databases hold.`,
		Example: `  outboxlab poison-counter
  outboxlab poison-counter --lethal 2,4 --threshold 2    # two poison messages, isolated sooner
  outboxlab poison-counter --threshold 1                 # every message dead-lettered unprocessed`,
		// A threshold of 1 dead-letters the healthy messages unprocessed too:
		// the healthy messages are not processed.
		FailsWith: []string{"--threshold", "1"},
		// Too few restarts: the bound ends the at-delivery run before the
		// counter reaches the threshold, so isolation is not exercised.
		NotExercisedWith: []string{"--max-restarts", "2"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindPoison(fs) },
	})
}

// poisonOptions are the experiment's parameters; the defaults are the course's.
type poisonOptions struct {
	scenarios.Declared
	Messages    int
	Lethal      []int
	Threshold   int
	MaxRestarts int

	// malformed are the message numbers seeded with a malformed body
	// (poison-body-validation; poison-counter's bodies are all well formed).
	malformed []int
}

// bindPoison declares the flags. --lethal is a list of message numbers
// within --messages, not a range; with its default, 3, --messages goes down
// to 3, which --help shows (1 with --lethal 1: Validate refuses a smaller
// one through --lethal).
func bindPoison(fs *pflag.FlagSet) *poisonOptions {
	o := &poisonOptions{}
	f := declareOn(&o.Declared, fs)
	declareMessages(f, &o.Messages)
	fs.IntSliceVar(&o.Lethal, "lethal", []int{3}, "numbers of the messages whose handling kills the consumer process (comma list)")
	f.Int(&o.Threshold, "threshold", 3, 1, 100, "attempts after which a message is dead-lettered")
	f.Int(&o.MaxRestarts, "max-restarts", 12, 1, maxLifetimes, "process lifetimes the supervisor starts at most (the run's upper bound)")
	return o
}

// declareMessages declares --messages, NTF-001 onwards: 3..100 at the
// default list of poison messages (message 3), 1..100 whatever it is.
func declareMessages(f *scenarios.Flags, p *int) {
	f.Int(p, "messages", 5, 3, 100, "notifications in the queue, NTF-001 onwards").
		Within(func() (int, int) { return 1, 100 }, nil)
}

// maxLifetimes bounds --max-restarts. The run starts at most twice that many
// real child processes (one supervisor loop per counter position), each
// delivering at most --messages notifications: 200 processes and 20000
// deliveries at the limits. A lifetime is a cheap process (a few ms to start,
// some 20 MB); every flag at its maximum takes under 2 s on 2 cores.
const maxLifetimes = 100

func (o *poisonOptions) Validate() error {
	var noLethal error
	if len(o.Lethal) == 0 {
		noLethal = errors.New("--lethal needs at least one message number")
	}
	if err := firstError(o.CheckDeclared(), noLethal); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, n := range o.Lethal {
		if n < 1 || n > o.Messages {
			return fmt.Errorf("--lethal %d is not a message number (1..%d)", n, o.Messages)
		}
		if seen[n] {
			return fmt.Errorf("--lethal %d is listed twice", n)
		}
		seen[n] = true
	}
	return nil
}

func noteKey(n int) string { return fmt.Sprintf("NTF-%03d", n) }

func (o *poisonOptions) lethalKeys() []string {
	keys := make([]string, len(o.Lethal))
	for i, n := range o.Lethal {
		keys[i] = noteKey(n)
	}
	slices.Sort(keys)
	return keys
}

// counterPosition is one of the two designs the experiment compares.
type counterPosition struct {
	name       string
	key        string // its name in JSON metric keys: restarts_on_catch
	atDelivery bool
	db         string   // the name of its database in the run (Env.DB)
	args       []string // more arguments for its lifetimes (poison-body-validation's)
}

// ended is how one process lifetime ended, as the supervisor saw it.
type ended struct {
	n          int
	started    time.Time
	ended      time.Time // its last delivery or transition
	deliveries int
	died       bool
	signal     string
	lastKey    string // the message it was handling when it ended
}

// poisonRun is one counter position driven to its end on its own database.
type poisonRun struct {
	position  counterPosition
	serial    bool // its database's writers take turns: a SQLite file
	lifetimes []ended
	msgs      []outbox.Message
	catches   map[int64]int // MessageId → CatchCounters.Failures
	audit     []outbox.AuditEntry
	tables    []outbox.Table
}

func (o *poisonOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	runs, err := o.superviseBoth(ctx, env)
	if err != nil {
		return nil, err
	}
	return o.render(runs, env.Verbose), nil
}

// superviseBoth runs each counter position to its end on its own database.
func (o *poisonOptions) superviseBoth(ctx context.Context, env scenarios.Env) ([]*poisonRun, error) {
	positions := []counterPosition{
		{"on catch", "on_catch", false, "on-catch", nil},
		{"at delivery", "at_delivery", true, "outbox", nil},
	}
	return o.superviseAll(ctx, env, positions)
}

// superviseAll runs each of positions to its end on its own database.
func (o *poisonOptions) superviseAll(ctx context.Context, env scenarios.Env, positions []counterPosition) ([]*poisonRun, error) {
	var runs []*poisonRun
	for _, p := range positions {
		location, err := env.DB(ctx, p.db)
		if err != nil {
			return nil, err
		}
		run, err := o.supervise(ctx, location, p)
		if err != nil {
			return nil, fmt.Errorf("run the %s counter: %w", p.name, err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// supervise seeds a fresh outbox and starts consumer lifetimes, one child
// process at a time, until the queue is empty or --max-restarts is reached.
func (o *poisonOptions) supervise(ctx context.Context, database dialect.Database, p counterPosition) (*poisonRun, error) {
	store, err := outbox.Open(ctx, database)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := o.seed(ctx, store); err != nil {
		return nil, err
	}
	run := &poisonRun{position: p, serial: store.Dialect().SerialWriters()}
	counter := "on-catch"
	if p.atDelivery {
		counter = "at-delivery"
	}
	at := clock.Start
	for n := 1; n <= o.MaxRestarts; n++ {
		name := "lifetime-" + strconv.Itoa(n)
		if err := o.audit(ctx, store, at, actionStarted, 0, name+" started"); err != nil {
			return nil, err
		}
		args := append([]string{"-db", database.String(), "-name", name, "-counter", counter,
			"-lethal", strings.Join(o.lethalKeys(), ","), "-threshold", strconv.Itoa(o.Threshold), "-start", clock.ISO(at)}, p.args...)
		exit, err := child.Run(ctx, lifetimeEntry, args...)
		if err != nil {
			return nil, err
		}
		if !exit.Died() && exit.Code != 0 {
			return nil, fmt.Errorf("%s exited %d: %s", name, exit.Code, strings.TrimSpace(exit.Output))
		}
		end, err := o.observe(ctx, store, n, at, exit)
		if err != nil {
			return nil, err
		}
		run.lifetimes = append(run.lifetimes, end)
		counts, err := store.Counts(ctx)
		if err != nil {
			return nil, err
		}
		if counts[outbox.Pending]+counts[outbox.Processing] == 0 {
			break
		}
		at = end.ended.Add(restartDelay)
	}
	if err := o.stopped(ctx, store, run); err != nil {
		return nil, err
	}
	return run, o.read(ctx, store, run)
}

// seed writes the queue: one notification per message number, each with its
// catch counter at zero, in one transaction.
func (o *poisonOptions) seed(ctx context.Context, store *outbox.Store) error {
	if err := store.CreateTable(ctx, catchSchema); err != nil {
		return fmt.Errorf("create catch counters: %w", err)
	}
	return store.InTx(ctx, func(tx *sql.Tx) error {
		for i := 1; i <= o.Messages; i++ {
			id, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: noteKey(i), Type: notificationType,
				MaxAttempts: o.Threshold, CreatedAt: clock.Start, Payload: notificationBody(i, slices.Contains(o.malformed, i))})
			if err != nil {
				return err
			}
			q, args := store.Dialect().Bind(`INSERT INTO CatchCounters (MessageId) VALUES (?)`, id)
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("seed catch counter of %s: %w", noteKey(i), err)
			}
		}
		return nil
	})
}

func (o *poisonOptions) audit(ctx context.Context, store *outbox.Store, at time.Time, action string, id int64, detail string) error {
	return store.InTx(ctx, func(tx *sql.Tx) error {
		return outbox.AuditTx(ctx, tx, at, supervisor, action, id, detail)
	})
}

// observe reads back from the audit log what lifetime n did, and the key of
// the message it last handled from OutboxMessages by the entry's MessageId
// (the audit Detail is prose, never parsed); it records the lifetime's
// death in the audit log when the child process was killed.
func (o *poisonOptions) observe(ctx context.Context, store *outbox.Store, n int, started time.Time, exit child.Exit) (ended, error) {
	e := ended{n: n, started: started, ended: started, died: exit.Died(), signal: exit.Signal}
	entries, err := store.Audit(ctx)
	if err != nil {
		return e, err
	}
	msgs, err := store.Messages(ctx)
	if err != nil {
		return e, err
	}
	keys := make(map[int64]string, len(msgs))
	for _, m := range msgs {
		keys[m.ID] = m.Key
	}
	name := "lifetime-" + strconv.Itoa(n)
	var lastID int64
	for _, a := range entries {
		if a.Actor != name {
			continue
		}
		at, err := time.Parse(clock.ISOLayout, a.At)
		if err != nil {
			return e, fmt.Errorf("read audit time %q: %w", a.At, err)
		}
		e.ended, lastID = at, a.MessageID
		e.lastKey = keys[a.MessageID]
		if a.Action == actionDelivered {
			e.deliveries++
		}
	}
	if !e.died {
		return e, o.audit(ctx, store, e.ended, actionExited, 0, name+" found nothing left to deliver and exited 0")
	}
	return e, o.audit(ctx, store, e.ended, actionDied, lastID,
		fmt.Sprintf("%s killed by %s on %s; its catch block never ran", name, signalName(e.signal), e.lastKey))
}

// stopped records, when messages are left, that the supervisor gave up at
// its bound rather than because the queue emptied.
func (o *poisonOptions) stopped(ctx context.Context, store *outbox.Store, run *poisonRun) error {
	counts, err := store.Counts(ctx)
	if err != nil {
		return err
	}
	left := counts[outbox.Pending] + counts[outbox.Processing]
	if left == 0 {
		return nil
	}
	last := run.lifetimes[len(run.lifetimes)-1]
	return o.audit(ctx, store, last.ended, actionGaveUp, 0,
		fmt.Sprintf("--max-restarts %d reached, %s left: the bound stopped the loop", o.MaxRestarts, report.Plural(left, "message")))
}

// sigkill is how a child process killed by SIGKILL reports its signal (child.Exit.Signal).
var sigkill = syscall.SIGKILL.String()

func signalName(s string) string {
	if s == sigkill {
		return "SIGKILL"
	}
	return s
}
