package wassal

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"time"

	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// session14Child is the entry point of one life of the Day 14 service, run as
// a real child process so that dying between two writes is a real crash.
const session14Child = "wassal-session14-service"

func init() { child.Register(session14Child, runSession14Child) }

// Write orders: the first version of the service writes the payment first;
// the redeployed one, "fixed" after the first crash, writes the message first.
const (
	paymentFirst = "payment-first"
	messageFirst = "message-first"
)

// session14Service is one life of the Day 14 payment service: each request
// writes a payment row and its ConfirmPaymentStatus outbox row, either as two
// separate transactions (the dual write) or as one.
type session14Service struct {
	atomic bool
	order  string
	life   int
	store  *outbox.Store
	clock  *clock.ScenarioClock
	out    io.Writer
	die    func() // ends the process at the crash point: child.Die in a child
}

// serve handles requests first..last; at crashAt's request it stops between
// the two writes with errCrash, for the caller to die on.
func (s *session14Service) serve(ctx context.Context, first, last int, crashAt string) error {
	for i := first; i <= last; i++ {
		now := s.clock.AdvanceTo(requestTime(i))
		if err := s.handle(ctx, i, now, PaymentKey(i) == crashAt); err != nil {
			return err
		}
	}
	return nil
}

func (s *session14Service) handle(ctx context.Context, i int, now time.Time, crash bool) error {
	key := PaymentKey(i)
	writes := []func(tx *sql.Tx) error{
		func(tx *sql.Tx) error {
			_, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{Key: key, AmountCents: amountCents(i),
				Status: outbox.PendingConfirmation, CreatedAt: now})
			return err
		},
		func(tx *sql.Tx) error {
			_, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: key, Type: ConfirmType, CreatedAt: now,
				Payload: fmt.Sprintf(`{"paymentKey":%q,"amountCents":%d}`, key, amountCents(i))})
			return err
		},
	}
	names := []string{"payment", "message"}
	if s.order == messageFirst {
		writes[0], writes[1] = writes[1], writes[0]
		names[0], names[1] = names[1], names[0]
	}
	head := fmt.Sprintf("life %d (%s, %s): ", s.life, s.order, s.design())
	if s.atomic {
		err := s.store.InTx(ctx, func(tx *sql.Tx) error {
			if err := writes[0](tx); err != nil {
				return err
			}
			if crash {
				s.say(eventLine(now, key, head+"BEGIN → "+names[0]+" inserted → killed (SIGKILL) before the "+names[1]+" and the COMMIT"))
				return s.crash() // dies here, inside the open transaction: no rollback runs
			}
			return writes[1](tx)
		})
		if err == nil {
			s.say(eventLine(now, key, head+"BEGIN → "+names[0]+" → "+names[1]+" → COMMIT → client told OK"))
		}
		return err
	}
	if err := s.store.InTx(ctx, writes[0]); err != nil {
		return err
	}
	if crash {
		s.say(eventLine(now, key, head+names[0]+" committed → killed (SIGKILL) before the "+names[1]))
		return s.crash()
	}
	if err := s.store.InTx(ctx, writes[1]); err != nil {
		return err
	}
	s.say(eventLine(now, key, head+names[0]+" committed → "+names[1]+" committed → client told OK"))
	return nil
}

// crash ends the process where it stands; without a die function (never in a
// real run) it reports errCrash instead.
func (s *session14Service) crash() error {
	if s.die != nil {
		s.die()
	}
	return errCrash
}

func (s *session14Service) design() string {
	if s.atomic {
		return "one transaction"
	}
	return "dual write"
}

func (s *session14Service) say(line string) { fmt.Fprintln(s.out, line) }

// runSession14Child runs one life of the service against the parent's database.
func runSession14Child(ctx context.Context, args []string, stdout io.Writer) int {
	fs := flag.NewFlagSet(session14Child, flag.ContinueOnError)
	var db dialect.Database
	fs.Var(&db, "db", "the parent's database: a SQLite file or a PostgreSQL URL")
	atomic := fs.Bool("atomic", false, "write payment and message in one transaction")
	order := fs.String("order", paymentFirst, "which row is written first")
	life := fs.Int("life", 1, "which life of the service this is")
	first := fs.Int("first", 1, "first request")
	last := fs.Int("last", 1, "last request")
	crashAt := fs.String("crash-at", "", "die between the two writes of this key's request")
	start := fs.String("start", clock.ISO(clock.Start), "scenario time at the start")
	ctx, store, at, ok := openChild(ctx, fs, args, &db, start)
	if !ok {
		return childFailed
	}
	defer store.Close()
	svc := &session14Service{atomic: *atomic, order: *order, life: *life, store: store, clock: clock.NewAt(at[0]), out: stdout, die: child.Die}
	if err := svc.serve(ctx, *first, *last, *crashAt); err != nil {
		return failChild(err)
	}
	return 0
}
