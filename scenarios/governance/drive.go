package governance

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"outboxlab/core/clock"
	gov "outboxlab/core/governance"
)

// driveSpec is one drain run: a mode, the options, the entries.
type driveSpec struct {
	mode    gov.Mode
	flags   *drainFlags
	entries []entrySpec
	// host, when set, runs after every pass: the host's own policy (for
	// example quarantine for manual review), returning timeline lines.
	host func(ctx context.Context, s *gov.Store, now time.Time) ([]string, error)
}

// driveRun is a drain run driven to its end, read back from the database.
type driveRun struct {
	mode         gov.Mode
	events       []gov.Event
	timeline     []string
	alerts       *gov.Alerts
	emitter      *gov.Scripted
	entries      []gov.Entry
	log          []gov.LogEntry
	remediations []gov.RemediationRecord
	tables       []gov.Table
	capped       bool // the demo cap stopped the run
	// laterSelected is what one more pass a day after the run selected:
	// nothing, unless something still waits (terminal entries are never replayed).
	laterSelected int
	// maxRetryCountDefault is the legacy column's declared default, as SQLite reports it.
	maxRetryCountDefault string
	started              time.Time
	ended                time.Time
}

// drive seeds the entries on a fresh database at path and drains them in
// spec.mode until nothing is left to do or the demo cap stops the run.
func drive(ctx context.Context, path string, spec driveSpec) (*driveRun, error) {
	store, err := gov.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	clk := clock.New()
	em := gov.NewScripted()
	if err := seedEntries(ctx, store, em, spec.entries, clk.Now()); err != nil {
		return nil, err
	}
	d, err := gov.NewDrain(gov.Config{Options: spec.flags.Options, Backoff: spec.flags.backoff(), Mode: spec.mode,
		Owner: string(spec.mode) + "-drain"}, store, em, clk)
	if err != nil {
		return nil, err
	}
	run := &driveRun{mode: spec.mode, alerts: gov.NewAlerts(spec.flags.Options), emitter: em, started: clk.Now()}
	d.Observe(run.alerts.Observe)
	d.Observe(func(ev gov.Event) {
		if ev.Kind != gov.Claimed {
			run.timeline = append(run.timeline, timelineLine(ev, spec.flags.MaxRetryAttempts))
		}
	})
	limit := len(spec.entries)*(max(spec.flags.RetryCap, spec.flags.MaxRetryAttempts)+len(spec.entries)+20)*2 + 100
	for pass := 0; ; pass++ {
		if pass > limit {
			return nil, fmt.Errorf("the %s drain did not settle after %d passes", spec.mode, limit)
		}
		res, err := d.Pass(ctx)
		if err != nil {
			return nil, err
		}
		run.events = append(run.events, res.Events...)
		if spec.host != nil {
			lines, err := spec.host(ctx, store, clk.Now())
			if err != nil {
				return nil, err
			}
			run.timeline = append(run.timeline, lines...)
		}
		if res.Idle {
			break
		}
		if !spec.flags.DeadLetterOnMaxRetryAttempts && run.failuresReached(spec.flags.RetryCap) {
			run.capped = true
			break
		}
	}
	run.ended = clk.Now()
	if !run.capped {
		clk.Advance(24 * time.Hour)
		later, err := d.Pass(ctx)
		if err != nil {
			return nil, err
		}
		run.laterSelected = later.Selected
	}
	return run, run.read(ctx, store)
}

// failuresReached reports whether the last transition of some entry left it
// live with at least cap failures: the demo cap.
func (r *driveRun) failuresReached(cap int) bool {
	last := map[int64]gov.Transition{}
	for _, ev := range r.events {
		if ev.Kind == gov.Handled {
			last[ev.Entry.ID] = ev.Transition
		}
	}
	for _, t := range last {
		if !t.To.Terminal() && t.RetryCount >= cap {
			return true
		}
	}
	return false
}

func (r *driveRun) read(ctx context.Context, store *gov.Store) (err error) {
	if r.entries, err = store.Entries(ctx); err != nil {
		return err
	}
	if r.log, err = store.Transitions(ctx); err != nil {
		return err
	}
	if r.remediations, err = store.Remediations(ctx); err != nil {
		return err
	}
	if r.maxRetryCountDefault, err = store.ColumnDefault(ctx, "MaxRetryCount"); err != nil {
		return err
	}
	r.tables, err = store.Tables(ctx)
	return err
}

// entry returns the final row labelled key.
func (r *driveRun) entry(key string) gov.Entry {
	for _, e := range r.entries {
		if e.Key == key {
			return e
		}
	}
	return gov.Entry{}
}

// handled returns the Handled events of one entry, in order.
func (r *driveRun) handled(key string) []gov.Event {
	var out []gov.Event
	for _, ev := range r.events {
		if ev.Kind == gov.Handled && ev.Entry.Key == key {
			out = append(out, ev)
		}
	}
	return out
}

// driveBoth drains the same entries twice: the store drain on env's database,
// the claim drain on a second file beside it.
func driveBoth(ctx context.Context, dbPath, dir string, spec driveSpec) (store, claim *driveRun, err error) {
	spec.mode = gov.StoreMode
	if store, err = drive(ctx, dbPath, spec); err != nil {
		return nil, nil, fmt.Errorf("run the store drain: %w", err)
	}
	spec.mode = gov.ClaimMode
	if claim, err = drive(ctx, filepath.Join(dir, "claim.db"), spec); err != nil {
		return nil, nil, fmt.Errorf("run the claim drain: %w", err)
	}
	return store, claim, nil
}
