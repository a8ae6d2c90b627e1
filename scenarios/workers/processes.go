package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/child"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// childName is the entry point of a drain worker process.
const childName = "workers-drain"

func init() { child.Register(childName, drainChild) }

// drainChild is one worker process: it opens the drain's file itself, claims
// and settles until a claim comes back empty, and prints its tally as JSON.
func drainChild(ctx context.Context, args []string, stdout io.Writer) int {
	fs := pflag.NewFlagSet(childName, pflag.ContinueOnError)
	var db dialect.Database
	fs.Var(&db, "db", "the drain's database: a SQLite file or a PostgreSQL URL")
	id := fs.String("worker", "", "this worker's id")
	batch := fs.Int("batch", 1, "messages per claim")
	lease := fs.Duration("lease", claim.DefaultLease, "how long a claim owns a message")
	delay := fs.Duration("handler-delay", 0, "real time each handler call waits")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", childName, err)
		return 3
	}
	store, err := outbox.OpenExisting(ctx, db)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", childName, *id, err)
		return 3
	}
	defer store.Close()
	cfg := drainConfig{Batch: *batch, Lease: *lease, HandlerDelay: *delay}
	w, err := newDrainWorker(ctx, store, *id, cfg, clock.New())
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", childName, *id, err)
		return 3
	}
	defer w.Close()
	t, err := w.drain(ctx, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", childName, *id, err)
		return 3
	}
	if err := json.NewEncoder(stdout).Encode(t); err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: print tally: %v\n", childName, *id, err)
		return 3
	}
	return 0
}

// drainProcesses runs cfg.Workers worker processes on the file at path
// until they have drained the round's n messages, and returns the round's
// time and each process's tally. The time is the span of the workers' own
// first claim to last settlement; starting the processes is not part of it.
func drainProcesses(ctx context.Context, database dialect.Database, cfg drainConfig, n int, prog *progress) (time.Duration, []workerTally, error) {
	watch, err := outbox.OpenExisting(ctx, database)
	if err != nil {
		return 0, nil, err
	}
	defer watch.Close()
	var before int
	if err := watch.QueryRow(ctx, watch.DB(), `SELECT COUNT(*) FROM Deliveries`).Scan(&before); err != nil {
		return 0, nil, fmt.Errorf("count the deliveries before the round: %w", err)
	}
	stop := prog.start(cfg.label(), n, func() int {
		var done int
		watch.QueryRow(ctx, watch.DB(), `SELECT COUNT(*) FROM Deliveries`).Scan(&done)
		return done - before
	})
	defer stop()

	exits := make([]child.Exit, cfg.Workers)
	errs := make([]error, cfg.Workers)
	var wg sync.WaitGroup
	for i := range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exits[i], errs[i] = child.Run(ctx, childName, "--db", database.String(), "--worker", workerID(i),
				"--batch", strconv.Itoa(cfg.Batch), "--lease", cfg.Lease.String(), "--handler-delay", cfg.HandlerDelay.String())
		}()
	}
	wg.Wait()
	tallies := make([]workerTally, cfg.Workers)
	var first, last int64
	for i, e := range exits {
		if errs[i] != nil {
			return 0, nil, errs[i]
		}
		if e.Code != 0 || e.Died() {
			return 0, nil, fmt.Errorf("worker process %d ended with code %d %s", i+1, e.Code, e.Signal)
		}
		t := &tallies[i]
		if err := json.Unmarshal([]byte(e.Output), t); err != nil {
			return 0, nil, fmt.Errorf("read worker process %d's tally: %w", i+1, err)
		}
		if i == 0 || t.Start < first {
			first = t.Start
		}
		last = max(last, t.End)
	}
	return time.Duration(last - first), tallies, nil
}
