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
	"outboxlab/core/outbox"
)

// childName is the entry point of a drain worker process.
const childName = "workers-drain"

func init() { child.Register(childName, drainChild) }

// drainChild is one worker process: it opens the drain's file itself, claims
// and settles until a claim comes back empty, and prints its tally as JSON.
func drainChild(ctx context.Context, args []string, stdout io.Writer) int {
	fs := pflag.NewFlagSet(childName, pflag.ContinueOnError)
	path := fs.String("db", "", "the drain's database file")
	id := fs.String("worker", "", "this worker's id")
	batch := fs.Int("batch", 1, "messages per claim")
	lease := fs.Duration("lease", claim.DefaultLease, "how long a claim owns a message")
	delay := fs.Duration("handler-delay", 0, "real time each handler call waits")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", childName, err)
		return 3
	}
	store, err := outbox.OpenExisting(ctx, *path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", childName, *id, err)
		return 3
	}
	defer store.Close()
	cfg := drainConfig{Batch: *batch, Lease: *lease, HandlerDelay: *delay}
	t, err := runWorker(ctx, store, *id, cfg, clock.New(), nil)
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

// drainProcesses runs cfg.Workers worker processes on the file at path. The
// drain's time is the span of the workers' own first claim to last
// settlement; starting the processes is not part of it.
func drainProcesses(ctx context.Context, path string, cfg drainConfig, run *drainRun, prog *progress) error {
	watch, err := outbox.OpenExisting(ctx, path)
	if err != nil {
		return err
	}
	defer watch.Close()
	stop := prog.start(cfg.label(), cfg.Messages, func() int {
		var n int
		watch.QueryRow(ctx, watch.DB(), `SELECT COUNT(*) FROM Deliveries`).Scan(&n)
		return n
	})
	defer stop()

	exits := make([]child.Exit, cfg.Workers)
	errs := make([]error, cfg.Workers)
	var wg sync.WaitGroup
	for i := range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exits[i], errs[i] = child.Run(ctx, childName, "--db", path, "--worker", fmt.Sprintf("worker-%d", i+1),
				"--batch", strconv.Itoa(cfg.Batch), "--lease", cfg.Lease.String(), "--handler-delay", cfg.HandlerDelay.String())
		}()
	}
	wg.Wait()
	run.tallies = make([]workerTally, cfg.Workers)
	var first, last int64
	for i, e := range exits {
		if errs[i] != nil {
			return errs[i]
		}
		if e.Code != 0 || e.Died() {
			return fmt.Errorf("worker process %d ended with code %d %s", i+1, e.Code, e.Signal)
		}
		t := &run.tallies[i]
		if err := json.Unmarshal([]byte(e.Output), t); err != nil {
			return fmt.Errorf("read worker process %d's tally: %w", i+1, err)
		}
		if i == 0 || t.Start < first {
			first = t.Start
		}
		last = max(last, t.End)
	}
	run.wall = time.Duration(last - first)
	return nil
}
