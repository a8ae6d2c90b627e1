package wassal

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/child"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// session13Child is the entry point of the Day 13 service's first life, run
// as a real child process so that its crash takes its memory with it.
const session13Child = "wassal-session13-service"

func init() { child.Register(session13Child, runSession13Child) }

// errCrash says the service reached its crash point; only a child acts on it.
var errCrash = errors.New("crash point reached")

// session13Service is one life of the Day 13 payment service. It takes
// payment requests and charges the provider; when a charge's answer is lost
// it keeps the re-check it owes in its memory (BEFORE) or finds it already
// written to the outbox with the payment (AFTER).
type session13Service struct {
	durable   bool
	life      int
	store     *outbox.Store
	provider  *provider.Client
	clock     *clock.ScenarioClock
	recheck   time.Duration
	reconcile bool // AFTER: run the reconciler over the outbox's re-check rows
	out       io.Writer
	memory    []reminder // BEFORE: the only record of the pending work
}

// reminder is a re-check the BEFORE service holds in memory.
type reminder struct {
	key string
	due time.Time
}

// serve handles payment requests first..last (1-based). It stops with
// errCrash right after crashAfter's request; otherwise it goes on with its
// pending work until windowEnd.
func (s *session13Service) serve(ctx context.Context, first, last int, crashAfter string, windowEnd time.Time) error {
	for i := first; i <= last; i++ {
		s.clock.AdvanceTo(requestTime(i))
		if err := s.handle(ctx, i); err != nil {
			return err
		}
		if PaymentKey(i) == crashAfter {
			now := s.clock.Now()
			if err := s.say(ctx, eventLine(now, "", fmt.Sprintf("CRASH: life %d is killed (SIGKILL) right after %s's request", s.life, crashAfter))); err != nil {
				return err
			}
			if err := s.say(ctx, eventLine(now, "", s.lostText())); err != nil {
				return err
			}
			return errCrash
		}
	}
	if s.durable {
		return s.reconcileUntil(ctx, windowEnd)
	}
	return s.recheckUntil(ctx, windowEnd)
}

// say tells one event of the timeline, after its writes: on the service's
// output, and to the run's change log with the rows it changed (in the
// child, the child's recorder: see changelog.ForChild).
func (s *session13Service) say(ctx context.Context, line string) error {
	fmt.Fprintln(s.out, line)
	return changelog.Event(ctx, s.clock.Now(), line)
}

// lostText says what the crash took with it.
func (s *session13Service) lostText() string {
	if s.durable {
		return "its memory is gone; its re-check rows are on disk"
	}
	keys := make([]string, len(s.memory))
	for i, r := range s.memory {
		keys[i] = r.key
	}
	return "the re-checks it held in memory die with it: " + keysText(keys)
}

// handle takes one payment request: write the payment (and, durably, its
// re-check row in a second write of its own), charge, record the answer if
// one came.
//
// Day 13's fix is durability: the pending work is on disk, so a restart
// finds it. The two writes are separate on purpose: writing both in one
// transaction, so that no crash can fall between them, is Day 14's lesson.
// This service's crash points are after a whole request, never between the
// two writes.
func (s *session13Service) handle(ctx context.Context, i int) error {
	key, now := PaymentKey(i), s.clock.Now()
	due := now.Add(s.recheck)
	err := s.store.InTx(ctx, func(tx *sql.Tx) error {
		_, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{Key: key, AmountCents: amountCents(i), Status: outbox.PendingConfirmation, CreatedAt: now})
		return err
	})
	if err != nil {
		return err
	}
	var recheckID int64
	if s.durable {
		if recheckID, err = writeRecheck(ctx, s.store, key, now, due); err != nil {
			return err
		}
		if err := s.say(ctx, eventLine(now, key, fmt.Sprintf("payment written; re-check row (due %s) written separately", clock.Stamp(due)))); err != nil {
			return err
		}
	}

	a, err := s.provider.Charge(ctx, key, amountCents(i), now)
	if errors.Is(err, provider.ErrTimeout) {
		if s.durable {
			if err := s.say(ctx, eventLine(now, key, "charge TIMED OUT → outcome unknown: the re-check row stays on disk")); err != nil {
				return err
			}
			return nil
		}
		s.memory = append(s.memory, reminder{key: key, due: due})
		if err := s.say(ctx, eventLine(now, key, "payment written → charge TIMED OUT → outcome unknown")); err != nil {
			return err
		}
		if err := s.say(ctx, eventLine(now, key, fmt.Sprintf("re-check due %s kept in process memory only", clock.Stamp(due)))); err != nil {
			return err
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("charge %s: %w", key, err)
	}
	status, phrase := resolution(a)
	err = s.store.InTx(ctx, func(tx *sql.Tx) error {
		_, err := outbox.ResolvePaymentTx(ctx, tx, key, status, a.TransactionID, now)
		return err
	})
	if err != nil {
		return err
	}
	if !s.durable {
		if err := s.say(ctx, eventLine(now, key, "payment written → charge → "+phrase)); err != nil {
			return err
		}
		return nil
	}
	if err := closeRecheck(ctx, s.store, recheckID, now, false); err != nil {
		return err
	}
	if err := s.say(ctx, eventLine(now, key, "charge → "+phrase+", then re-check row closed")); err != nil {
		return err
	}
	return nil
}

// recheckUntil is the BEFORE service's timer: it asks the provider about each
// payment it remembers, when due, as long as the process lives.
func (s *session13Service) recheckUntil(ctx context.Context, windowEnd time.Time) error {
	for len(s.memory) > 0 {
		slices.SortStableFunc(s.memory, func(a, b reminder) int { return a.due.Compare(b.due) })
		r := s.memory[0]
		if r.due.After(windowEnd) {
			return nil
		}
		s.memory = s.memory[1:]
		now := s.clock.AdvanceTo(r.due)
		a, err := s.provider.CheckStatus(ctx, r.key, now)
		if err != nil {
			s.memory = append(s.memory, reminder{key: r.key, due: now.Add(s.recheck)})
			if err := s.say(ctx, eventLine(now, r.key, fmt.Sprintf("in-memory re-check → status check FAILED → asked again in %s", s.recheck))); err != nil {
				return err
			}
			continue
		}
		status, phrase := resolution(a)
		err = s.store.InTx(ctx, func(tx *sql.Tx) error {
			_, err := outbox.ResolvePaymentTx(ctx, tx, r.key, status, a.TransactionID, now)
			return err
		})
		if err != nil {
			return err
		}
		if err := s.say(ctx, eventLine(now, r.key, "in-memory re-check → status check → "+phrase)); err != nil {
			return err
		}
	}
	return nil
}

// reconcileUntil is the AFTER service's reconciler: it reads the re-check
// rows on disk and, when each falls due, asks the provider for the payment's
// status, never charging. It wakes claim.WakeupSlack after a row's due time,
// as the lab's workers wake after a backoff. An answer is recorded on the
// payment, then the row is closed (two writes, as on Day 13 every write is);
// a failed check sets the row due again --recheck-after later.
func (s *session13Service) reconcileUntil(ctx context.Context, windowEnd time.Time) error {
	if !s.reconcile {
		return nil
	}
	for step := 0; ; step++ {
		if step > 10000 {
			return fmt.Errorf("the reconciler did not settle after %d steps", step)
		}
		rows, err := readRechecks(ctx, s.store)
		if err != nil {
			return err
		}
		r, ok := nextRecheck(rows)
		if !ok {
			return nil
		}
		wake := r.due.Add(claim.WakeupSlack)
		if wake.After(windowEnd) {
			if err := s.say(ctx, eventLine(s.clock.Now(), "", fmt.Sprintf("reconciler: nothing due; next re-check due %s, after the watch", clock.Stamp(r.due)))); err != nil {
				return err
			}
			return nil
		}
		if now := s.clock.Now(); wake.After(now) {
			if err := s.say(ctx, eventLine(now, "", fmt.Sprintf("reconciler: nothing due → clock advances to %s (row due + 1 ms)", clock.Stamp(wake)))); err != nil {
				return err
			}
			s.clock.AdvanceTo(wake)
		}
		if err := s.checkStatus(ctx, r); err != nil {
			return err
		}
	}
}

// recheck asks the provider about one due re-check row's payment.
func (s *session13Service) checkStatus(ctx context.Context, r recheckRow) error {
	now := s.clock.Now()
	a, err := s.provider.CheckStatus(ctx, r.key, now)
	if err != nil {
		due := now.Add(s.recheck)
		if err := s.say(ctx, eventLine(now, r.key, fmt.Sprintf("re-check row %d → status check FAILED → due again %s", r.id, clock.Stamp(due)))); err != nil {
			return err
		}
		return postponeRecheck(ctx, s.store, r.id, due)
	}
	status, phrase := resolution(a)
	err = s.store.InTx(ctx, func(tx *sql.Tx) error {
		_, err := outbox.ResolvePaymentTx(ctx, tx, r.key, status, a.TransactionID, now)
		return err
	})
	if err != nil {
		return err
	}
	if err := closeRecheck(ctx, s.store, r.id, now, true); err != nil {
		return err
	}
	if err := s.say(ctx, eventLine(now, r.key, fmt.Sprintf("re-check row %d → status check → %s, row Done", r.id, phrase))); err != nil {
		return err
	}
	return nil
}

// runSession13Child runs the service's first life in this process, against
// the database and the provider its parent names.
func runSession13Child(ctx context.Context, args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet(session13Child, flag.ContinueOnError)
	var db dialect.Database
	fs.Var(&db, "db", "the parent's database: a SQLite file or a PostgreSQL URL")
	url := fs.String("provider", "", "provider URL")
	durable := fs.Bool("durable", false, "keep pending work in the outbox")
	life := fs.Int("life", 1, "which life of the service this is")
	first := fs.Int("first", 1, "first request")
	last := fs.Int("last", 1, "last request")
	crashAfter := fs.String("crash-after", "", "die right after this key's request")
	recheck := fs.Duration("recheck-after", 5*time.Second, "re-check delay")
	reconcile := fs.Bool("reconcile", true, "run the reconciler")
	start := fs.String("start", clock.ISO(clock.Start), "scenario time at the start")
	windowEnd := fs.String("window-end", "", "end of the observation window")
	ctx, store, at, ok := openChild(ctx, fs, args, &db, start, windowEnd)
	if !ok {
		return childFailed
	}
	defer store.Close()
	startAt, end := at[0], at[1]
	svc := &session13Service{durable: *durable, life: *life, store: store, provider: provider.NewClient(*url),
		clock: clock.NewAt(startAt), recheck: *recheck, reconcile: *reconcile, out: stdout}
	err := svc.serve(ctx, *first, *last, *crashAfter, end)
	if errors.Is(err, errCrash) {
		child.Die()
	}
	if err != nil {
		return failChild(err)
	}
	return 0
}
