package crashloop

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/worker"
)

// workerEntry is the child entry point: one worker process draining the outbox.
const workerEntry = "crashloop-worker"

// readyLine is what a worker prints once its databases are open, and
// workedLine what it prints after each step that settled a claim: the
// supervisor arms its kill timer at the first, so every worker process
// moves the drain on by at least one step before it can be killed, and the
// crash loop ends however slowly a loaded machine runs it.
const (
	readyLine  = "ready"
	workedLine = "worked"
)

func init() { child.Register(workerEntry, runWorker) }

// workerArgs is what a worker process is started with.
type workerArgs struct {
	outboxDB    dialect.Database
	providerDB  dialect.Database
	id          string
	lease       time.Duration // real time: every process must mean the same by it
	backoff     time.Duration // base of the retry backoff
	batch       int
	poisonEvery int  // MSG-n with n a multiple of this always fails to charge (0: none)
	dieAfter    int  // 0: never; n: SIGKILL itself right after its n-th charge, before completing
	noDedup     bool // the provider charges every delivery: what the checks must catch
}

func (a workerArgs) list() []string {
	return []string{
		"-outbox", a.outboxDB.String(), "-provider", a.providerDB.String(), "-id", a.id,
		"-lease", a.lease.String(), "-backoff", a.backoff.String(), "-batch", strconv.Itoa(a.batch),
		"-poison-every", strconv.Itoa(a.poisonEvery), "-die-after", strconv.Itoa(a.dieAfter),
		"-no-dedup=" + strconv.FormatBool(a.noDedup),
	}
}

func parseWorkerArgs(args []string) (workerArgs, error) {
	var a workerArgs
	fs := flag.NewFlagSet(workerEntry, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&a.outboxDB, "outbox", "outbox database")
	fs.Var(&a.providerDB, "provider", "provider ledger database")
	fs.StringVar(&a.id, "id", "", "worker id")
	fs.DurationVar(&a.lease, "lease", time.Second, "lease")
	fs.DurationVar(&a.backoff, "backoff", 20*time.Millisecond, "backoff base")
	fs.IntVar(&a.batch, "batch", 4, "claim batch")
	fs.IntVar(&a.poisonEvery, "poison-every", 0, "poison key period")
	fs.IntVar(&a.dieAfter, "die-after", 0, "die after this many charges")
	fs.BoolVar(&a.noDedup, "no-dedup", false, "provider without deduplication")
	if err := fs.Parse(args); err != nil {
		return a, fmt.Errorf("parse worker arguments: %w", err)
	}
	if a.outboxDB.IsZero() || a.providerDB.IsZero() || a.id == "" {
		return a, fmt.Errorf("worker needs -outbox, -provider and -id")
	}
	return a, nil
}

func runWorker(ctx context.Context, args []string, stdout io.Writer) int {
	a, err := parseWorkerArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := drain(ctx, a, stdout); err != nil {
		fmt.Fprintf(os.Stderr, "worker %s: %v\n", a.id, err)
		return 1
	}
	return 0
}

// drain runs a core/worker until no message is live any more. Its scenario
// clock follows the wall clock: leases are only meaningful between processes
// if they all read the same time, and the wall clock is the one they share.
func drain(ctx context.Context, a workerArgs, stdout io.Writer) error {
	store, err := outbox.OpenExisting(ctx, a.outboxDB)
	if err != nil {
		return err
	}
	defer store.Close()
	prov, err := provider.OpenDurable(ctx, a.providerDB)
	if err != nil {
		return err
	}
	defer prov.Close()
	prov.Deduplicate = !a.noDedup
	prov.Fails = func(key string) bool { return isPoison(key, a.poisonEvery) }
	// The supervisor's kill timer starts here, so that a kill lands in the
	// work rather than in the start-up of the process.
	fmt.Fprintln(stdout, readyLine)

	clk := clock.NewAt(time.Now())
	w := &worker.Worker{ID: a.id, Store: store, Clock: clk, Handler: chargeHandler(prov, a.dieAfter),
		Policy: backoff.Policy{Backoff: backoff.Backoff{Base: a.backoff}, DeadLetter: true},
		Lease:  a.lease, Batch: a.batch}
	for {
		// The worker moves its clock to the next due time when nothing is
		// claimable; wait until the wall clock is there too.
		if ahead := time.Until(clk.Now()); ahead > 0 {
			time.Sleep(ahead)
		}
		clk.AdvanceTo(time.Now())
		res, err := w.Step(ctx)
		if err != nil {
			return err
		}
		if !res.Idle {
			fmt.Fprintln(stdout, workedLine)
			continue
		}
		// Idle can be a moment's view (a peer retrying with no backoff);
		// only an outbox with no live message is drained.
		counts, err := store.Counts(ctx)
		if err != nil {
			return err
		}
		if counts[outbox.Pending]+counts[outbox.Processing] == 0 {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// chargeHandler charges the provider with the message key as idempotency key
// and records the completion in the transaction that marks the message
// Processed, so each completion row is one Processed transition that committed.
func chargeHandler(prov *provider.Durable, dieAfter int) worker.Handler {
	charges := 0
	return worker.HandlerFunc(func(ctx context.Context, c outbox.Claim, now time.Time) (worker.Outcome, error) {
		rec, err := prov.Charge(ctx, c.Key, c.Worker, now)
		if err != nil {
			return worker.Outcome{}, err
		}
		charges++
		if charges == dieAfter {
			child.Die() // the charge committed at the provider; the outbox never hears of it
		}
		duplicate := 0 // booleans are stored as INTEGER 0/1 on both databases
		if rec.Duplicate {
			duplicate = 1
		}
		return worker.Outcome{Detail: rec.TransactionID, Apply: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx,
				`INSERT INTO CrashLoopCompletions (MessageId, Worker, ClaimToken, TransactionId, Duplicate)
				 VALUES ($1, $2, $3, $4, $5)`, c.MessageID, c.Worker, c.Token, rec.TransactionID, duplicate)
			if err != nil {
				return fmt.Errorf("record completion of %s: %w", c.Key, err)
			}
			return nil
		}}, nil
	})
}

// isPoison reports whether MSG-n is one of the keys the provider never charges.
func isPoison(key string, every int) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(key, "MSG-"))
	return err == nil && every > 0 && n%every == 0
}
