package retry

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// lifetimeEntry is the child entry point of one consumer process lifetime.
const lifetimeEntry = "retry-poison-lifetime"

func init() { child.Register(lifetimeEntry, runLifetime) }

// Timing of the poison-counter runs, in scenario time.
const (
	// visibilityTimeout is the lease a delivery takes: a message whose process
	// died becomes deliverable again once it has passed.
	visibilityTimeout = 5 * time.Second
	// restartDelay is how long the supervisor takes to restart a dead consumer;
	// longer than the visibility timeout, so the message that killed it is
	// visible again, and first in line, when the next lifetime starts.
	restartDelay = 10 * time.Second
	// workTime is how long handling one healthy message takes.
	workTime = 200 * time.Millisecond
)

// catchSchema is the counter the on-catch consumer keeps: incremented in its
// catch block, never at delivery.
const catchSchema = `CREATE TABLE IF NOT EXISTS CatchCounters (
    MessageId INTEGER PRIMARY KEY REFERENCES OutboxMessages (Id),
    Failures  INTEGER NOT NULL DEFAULT 0 CHECK (Failures >= 0) -- incremented only when an error is caught
) STRICT;`

// lifetime is one consumer process: it delivers messages oldest first until
// none is left, or until a lethal message ends the process.
type lifetime struct {
	store      *outbox.Store
	clock      *clock.ScenarioClock
	name       string // lifetime-N, the worker id on its claims
	atDelivery bool   // where the attempt counter is incremented and checked
	threshold  int
	lethal     []string
	work       func(c outbox.Claim) error // the job; a lethal message never returns from it

	// validate checks each body at delivery, before the handler: a
	// malformed one is dead-lettered at once (poison-body-validation).
	validate bool
	// recordHandler writes each handler call to the audit log, committed
	// before the handler runs, so a call that kills the process is counted.
	recordHandler bool
	// dieOnMalformed makes the handler's parse of a malformed body kill the
	// process, as a parse that never returns would.
	dieOnMalformed bool
}

// runLifetime is the child's main: it parses its arguments, runs one
// lifetime against the database and exits 0 when nothing is left to deliver.
func runLifetime(ctx context.Context, args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet(lifetimeEntry, flag.ContinueOnError)
	var db dialect.Database
	fs.Var(&db, "db", "database location: a SQLite file or a PostgreSQL URL")
	name := fs.String("name", "", "worker id of this lifetime")
	counter := fs.String("counter", "", "at-delivery or on-catch")
	lethal := fs.String("lethal", "", "comma list of lethal message keys")
	threshold := fs.Int("threshold", 0, "attempt threshold")
	start := fs.String("start", "", "scenario time the lifetime starts at")
	validate := fs.Bool("validate", false, "validate each body at delivery, before the handler")
	recordHandler := fs.Bool("record-handler", false, "write each handler call to the audit log")
	dieOnMalformed := fs.Bool("die-on-malformed", false, "a malformed body kills the process in the handler")
	if err := fs.Parse(args); err != nil {
		return 3
	}
	at, err := time.Parse(clock.ISOLayout, *start)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lifetime: bad start time %q\n", *start)
		return 3
	}
	store, err := outbox.OpenExisting(ctx, db)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lifetime: %v\n", err)
		return 3
	}
	defer store.Close()
	l := &lifetime{store: store, clock: clock.NewAt(at), name: *name, atDelivery: *counter == "at-delivery",
		threshold: *threshold, lethal: strings.Split(*lethal, ","),
		validate: *validate, recordHandler: *recordHandler, dieOnMalformed: *dieOnMalformed}
	l.work = l.handle
	delivered, err := l.run(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lifetime: %v\n", err)
		return 3
	}
	fmt.Fprintf(stdout, "%s delivered %d and found nothing left\n", l.name, delivered)
	return 0
}

// handle is the job itself. A lethal message ends the process at once: no
// deferred function, recover or catch block runs after child.Die.
func (l *lifetime) handle(c outbox.Claim) error {
	if slices.Contains(l.lethal, c.Key) {
		child.Die()
	}
	if l.dieOnMalformed && parseNotification(c.Payload) != nil {
		child.Die() // the parse of a malformed body never returns
	}
	l.clock.Advance(workTime)
	return nil
}

// run delivers until nothing is deliverable and returns how many it delivered.
func (l *lifetime) run(ctx context.Context) (int, error) {
	for n := 0; ; n++ {
		c, ok, err := l.deliver(ctx)
		if err != nil || !ok {
			return n, err
		}
		if l.atDelivery && c.Attempt >= l.threshold {
			// The counter was incremented and committed with the delivery, before
			// any work: the message is isolated without running the job again.
			err := l.store.DeadLetter(ctx, c, l.clock.Now(),
				fmt.Sprintf("the counter reached threshold %d", l.threshold))
			if err != nil {
				return n, err
			}
			continue
		}
		if l.validate {
			if bad := parseNotification(c.Payload); bad != nil {
				// The second defence: a malformed body never reaches the handler
				// and is not retried; it goes to the dead letters on this delivery.
				if err := l.store.DeadLetter(ctx, c, l.clock.Now(), malformedPrefix+bad.Error()); err != nil {
					return n, err
				}
				continue
			}
		}
		if err := l.attempt(ctx, c); err != nil {
			return n, err
		}
	}
}

// deliver claims the oldest deliverable message and writes the delivery to
// the audit log in the same transaction.
func (l *lifetime) deliver(ctx context.Context) (c outbox.Claim, ok bool, err error) {
	now := l.clock.Now()
	err = l.store.InTx(ctx, func(tx *sql.Tx) error {
		claims, err := l.store.ClaimTx(ctx, tx, l.name, now, visibilityTimeout, 1)
		if err != nil || len(claims) == 0 {
			return err
		}
		c, ok = claims[0], true
		return outbox.AuditTx(ctx, tx, now, l.name, actionDelivered, c.MessageID,
			fmt.Sprintf("%s delivered (delivery %d)", c.Key, c.Attempt))
	})
	return c, ok, err
}

// attempt runs the job, catching whatever can be caught: an error or a panic
// goes through caught, where the on-catch design counts it.
func (l *lifetime) attempt(ctx context.Context, c outbox.Claim) (err error) {
	if l.recordHandler {
		err := l.store.InTx(ctx, func(tx *sql.Tx) error {
			return outbox.AuditTx(ctx, tx, l.clock.Now(), l.name, actionHandler, c.MessageID, c.Key+" handed to the handler")
		})
		if err != nil {
			return err
		}
	}
	jobErr := func() (jobErr error) {
		defer func() {
			if r := recover(); r != nil {
				jobErr = fmt.Errorf("job panicked: %v", r)
			}
		}()
		return l.work(c)
	}()
	if jobErr != nil {
		return l.caught(ctx, c, jobErr)
	}
	return l.store.InTx(ctx, func(tx *sql.Tx) error {
		if err := l.store.CompleteTx(ctx, tx, c, l.clock.Now()); err != nil {
			return err
		}
		return outbox.AuditTx(ctx, tx, l.clock.Now(), l.name, actionProcessed, c.MessageID, c.Key)
	})
}

// caught is the error path. The on-catch design increments its counter here
// and dead-letters at the threshold; the at-delivery design counted already,
// and its next delivery checks the threshold.
func (l *lifetime) caught(ctx context.Context, c outbox.Claim, jobErr error) error {
	now := l.clock.Now()
	return l.store.InTx(ctx, func(tx *sql.Tx) error {
		if l.atDelivery {
			return l.store.RetryTx(ctx, tx, c, time.Time{}, jobErr.Error())
		}
		var failures int
		q, args := l.store.Dialect().Bind(
			`UPDATE CatchCounters SET Failures = Failures + 1 WHERE MessageId = ? RETURNING Failures`, c.MessageID)
		err := tx.QueryRowContext(ctx, q, args...).Scan(&failures)
		if err != nil {
			return fmt.Errorf("count caught failure of %s: %w", c.Key, err)
		}
		if failures >= l.threshold {
			return l.store.DeadLetterTx(ctx, tx, c, now, jobErr.Error())
		}
		return l.store.RetryTx(ctx, tx, c, time.Time{}, jobErr.Error())
	})
}
