package wassal

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// session15Child is the entry point of worker-c, the Day 15 worker that dies
// mid-processing, run as a real child process.
const session15Child = "wassal-session15-worker"

func init() { child.Register(session15Child, runSession15Child) }

// notificationsSchema is Day 15's business effect: telling the customer the
// outcome. Unlike the payment update it is not idempotent, so doing the work
// twice shows.
const notificationsSchema = `CREATE TABLE IF NOT EXISTS PaymentNotifications (
    Id         INTEGER PRIMARY KEY,
    PaymentKey TEXT NOT NULL,
    Outcome    TEXT NOT NULL,
    SentBy     TEXT NOT NULL,
    SentAtUtc  TEXT NOT NULL
) STRICT`

// outboxWorker is one Day 15 worker on its own connections. The naive one
// reads, then marks, then completes by id; the leased one claims atomically
// with a lease and (when fenced) completes only while it still owns the claim.
type outboxWorker struct {
	id     string
	naive  bool
	fenced bool
	store  *outbox.Store
	prov   statusChecker
	lease  time.Duration
}

// read is the naive worker's first step: a plain SELECT of Pending ids.
func (w *outboxWorker) read(ctx context.Context, limit int) ([]int64, error) {
	return naiveSelectPending(ctx, w.store, limit)
}

// mark is the naive worker's second step: mark each id it read as its own.
func (w *outboxWorker) mark(ctx context.Context, ids []int64) ([]outbox.Claim, error) {
	claims := make([]outbox.Claim, 0, len(ids))
	for _, id := range ids {
		c, err := naiveMarkProcessing(ctx, w.store, id, w.id)
		if err != nil {
			return nil, err
		}
		claims = append(claims, c)
	}
	return claims, nil
}

// claim takes up to limit messages: read then mark (naive), or one atomic claim.
func (w *outboxWorker) claim(ctx context.Context, now time.Time, limit int) ([]outbox.Claim, error) {
	if !w.naive {
		return w.store.Claim(ctx, w.id, now, w.lease, limit)
	}
	ids, err := w.read(ctx, limit)
	if err != nil {
		return nil, err
	}
	return w.mark(ctx, ids)
}

// finish records the provider's answer: the payment, the customer's
// notification and the Processed transition, in one transaction. A fenced
// worker that no longer owns the claim is refused and the whole transaction
// rolls back: refused is true and nothing was written.
func (w *outboxWorker) finish(ctx context.Context, c outbox.Claim, a provider.Answer, now time.Time) (refused bool, err error) {
	status, _ := resolution(a)
	err = w.store.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := outbox.ResolvePaymentTx(ctx, tx, c.Key, status, a.TransactionID, now); err != nil {
			return err
		}
		_, err := w.store.Exec(ctx, tx,
			`INSERT INTO PaymentNotifications (PaymentKey, Outcome, SentBy, SentAtUtc) VALUES (?, ?, ?, ?)`,
			c.Key, string(a.Outcome), w.id, clock.ISO(now))
		if err != nil {
			return fmt.Errorf("notify the customer of %s: %w", c.Key, err)
		}
		if w.fenced {
			return w.store.CompleteTx(ctx, tx, c, now)
		}
		_, err = naiveCompleteTx(ctx, w.store, tx, c.MessageID, now)
		return err
	})
	if errors.Is(err, outbox.ErrNotOwner) {
		return true, nil
	}
	return false, err
}

// claimText says what a claim took, for the timeline.
func (w *outboxWorker) claimText(c outbox.Claim) string {
	if w.naive {
		return fmt.Sprintf("marks it Processing (attempt %d, no lease)", c.Attempt)
	}
	return fmt.Sprintf("claims it (attempt %d, token %d, lease until %s)", c.Attempt, c.Token, clock.Stamp(c.LeaseUntil))
}

// runSession15Child is worker-c: it claims one message, asks the provider
// about it (unless it dies first) and is killed before recording the answer.
func runSession15Child(ctx context.Context, args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet(session15Child, flag.ContinueOnError)
	var db dialect.Database
	fs.Var(&db, "db", "the parent's database: a SQLite file or a PostgreSQL URL")
	url := fs.String("provider", "", "provider URL")
	naive := fs.Bool("naive", false, "select-then-update instead of the atomic claim")
	fenced := fs.Bool("fenced", false, "complete only while the claim is still this worker's")
	lease := fs.Duration("lease", 30*time.Second, "lease of the claim")
	at := fs.String("at", clock.ISO(clock.Start), "scenario time of the poll")
	crashPoint := fs.String("crash-point", afterCall, "when to die: after-call, before-call, or none")
	ctx, store, times, ok := openChild(ctx, fs, args, &db, at)
	if !ok {
		return childFailed
	}
	defer store.Close()
	now := times[0]
	tell := func(key, text string) int { // a line of the timeline, and its event in the change log
		line := eventLine(now, key, text)
		fmt.Fprintln(stdout, line)
		if err := changelog.Event(ctx, now, line); err != nil {
			return failChild(err)
		}
		return 0
	}
	w := &outboxWorker{id: "worker-c", naive: *naive, fenced: *fenced, store: store, prov: provider.NewClient(*url), lease: *lease}
	claims, err := w.claim(ctx, now, 1)
	if err != nil {
		return failChild(err)
	}
	if len(claims) == 0 {
		return tell("", "worker-c (a child process) polls: nothing to claim")
	}
	c := claims[0]
	text := "worker-c (a child process) " + w.claimText(c)
	if *crashPoint == beforeCall {
		if code := tell(c.Key, text+" → killed (SIGKILL) before recording anything"); code != 0 {
			return code
		}
		child.Die()
	}
	a, err := w.prov.CheckStatus(ctx, c.Key, now)
	if err != nil {
		return failChild(err)
	}
	text += " → status check → " + answerText(a)
	if *crashPoint == afterCall {
		if code := tell(c.Key, text+" → killed (SIGKILL) before recording anything"); code != 0 {
			return code
		}
		child.Die()
	}
	if refused, err := w.finish(ctx, c, a, now); err != nil || refused {
		return failChild(fmt.Errorf("worker-c could not record %s (refused %v): %v", c.Key, refused, err))
	}
	status, _ := resolution(a)
	return tell(c.Key, fmt.Sprintf("%s → payment %s, notified → Processed; exits normally (--crash-point none)", text, status))
}
