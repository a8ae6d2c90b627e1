package crashloop

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/internal/pgtest"
)

// maxAttempts is every message's ceiling: a poison key is dead-lettered by
// the failure of its third claim, whatever killed the first two.
const maxAttempts = 3

// completionsSchema is the crash loop's business table: one row per Processed
// transition that committed, written in the same transaction. No unique key,
// so that a second completion of a message would show.
const completionsSchema = `CREATE TABLE IF NOT EXISTS CrashLoopCompletions (
    Id            INTEGER PRIMARY KEY,
    MessageId     INTEGER NOT NULL,
    Worker        TEXT    NOT NULL,
    ClaimToken    INTEGER NOT NULL,
    TransactionId TEXT    NOT NULL,
    Duplicate     INTEGER NOT NULL
) STRICT;`

// lab is one crash loop's files and worker settings.
type lab struct {
	worker workerArgs // id and dieAfter are set per process
	n      int
}

// newLab seeds an outbox of n messages MSG-00001.. and an empty provider
// ledger, two databases of on.
func newLab(t *testing.T, on pgtest.Backend, n, poisonEvery int, lease time.Duration) *lab {
	t.Helper()
	ctx := context.Background()
	l := &lab{n: n, worker: workerArgs{
		outboxDB: on.Database(t, "outbox"), providerDB: on.Database(t, "provider"),
		lease: lease, backoff: 20 * time.Millisecond, batch: 4, poisonEvery: poisonEvery,
	}}
	store, err := outbox.Open(ctx, l.worker.outboxDB)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	schema := completionsSchema
	if store.Dialect() == dialect.Postgres {
		if schema, err = dialect.PostgresDDL(schema); err != nil {
			t.Fatal(err)
		}
	}
	err = store.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("create completions table: %w", err)
		}
		for i := 1; i <= n; i++ {
			_, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: key(i), Type: "Charge",
				MaxAttempts: maxAttempts, CreatedAt: clock.Start})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	prov, err := provider.OpenDurable(ctx, l.worker.providerDB)
	if err != nil {
		t.Fatal(err)
	}
	prov.Close()
	return l
}

// counts says how many messages are in each status, for a failure message.
func (l *lab) counts(t *testing.T) string {
	t.Helper()
	store, err := outbox.OpenExisting(context.Background(), l.worker.outboxDB)
	if err != nil {
		return err.Error()
	}
	defer store.Close()
	c, err := store.Counts(context.Background())
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d Pending, %d Processing, %d Processed, %d DeadLettered",
		c[outbox.Pending], c[outbox.Processing], c[outbox.Processed], c[outbox.DeadLettered])
}

func key(i int) string { return fmt.Sprintf("MSG-%05d", i) }

// args returns the command line of worker process id.
func (l *lab) args(id string, dieAfter int) []string {
	a := l.worker
	a.id, a.dieAfter = id, dieAfter
	return a.list()
}

// killedBySIGKILL reports whether a child's Wait error says SIGKILL ended it.
func killedBySIGKILL(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// supervisor keeps a fixed number of worker processes running, restarting
// each one its kill timer ends, until every process has drained the outbox.
type supervisor struct {
	lab     *lab
	maxLife time.Duration // a worker is SIGKILLed at a random moment in [0, maxLife) after its first settled step

	mu       sync.Mutex
	rng      *rand.Rand
	starts   int
	restarts int
	kills    int // processes that ended by SIGKILL
}

// life draws how long the next worker may work before it is killed.
func (s *supervisor) life() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(s.rng.Int64N(int64(s.maxLife)))
}

// runSlot runs worker processes for one slot, one after another, each killed
// at a random moment of its work, until one of them exits 0 (the outbox is drained).
func (s *supervisor) runSlot(ctx context.Context, slot int) error {
	for incarnation := 0; ; incarnation++ {
		id := fmt.Sprintf("w%d.%d", slot, incarnation)
		err := s.runWorker(ctx, id)
		killed := killedBySIGKILL(err) && ctx.Err() == nil
		s.mu.Lock()
		s.starts++
		if incarnation > 0 {
			s.restarts++
		}
		if killed {
			s.kills++
		}
		s.mu.Unlock()
		switch {
		case err == nil:
			return nil
		case killed:
			continue
		case ctx.Err() != nil:
			return fmt.Errorf("worker %s still running when the crash loop gave up: %w", id, ctx.Err())
		default:
			return err
		}
	}
}

// runWorker starts worker process id, arms its kill timer once it is ready,
// and returns how it ended (the Wait error; nil for exit 0).
func (s *supervisor) runWorker(ctx context.Context, id string) error {
	cmd, err := child.Command(ctx, workerEntry, s.lab.args(id, 0)...)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start worker %s: %w", id, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start worker %s: %w", id, err)
	}
	// Read the whole of stdout (the ready line, then EOF) before Wait.
	lines := bufio.NewScanner(stdout)
	// The kill timer starts after the worker's first settled step (it
	// lands at a random moment of the work after it), so that each process
	// makes progress whatever the machine's load.
	if lines.Scan() && lines.Text() == readyLine && lines.Scan() && lines.Text() == workedLine {
		timer := time.AfterFunc(s.life(), func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	for lines.Scan() {
	}
	err = cmd.Wait()
	if err != nil && !killedBySIGKILL(err) {
		return fmt.Errorf("worker %s: %v: %s", id, err, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		// Its server sessions may hold row locks: end them before the slot restarts.
		if eerr := child.EndSessions(ctx, cmd); eerr != nil {
			return fmt.Errorf("worker %s: %w", id, eerr)
		}
	}
	return err
}

// run drains the lab's outbox with workers processes running at once. The
// first worker that fails for any other reason than SIGKILL stops the run.
func (s *supervisor) run(ctx context.Context, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for slot := range workers {
		wg.Go(func() {
			if errs[slot] = s.runSlot(ctx, slot); errs[slot] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
