package governance

import (
	"context"
	"fmt"
	"outboxlab/core/changelog"
	"time"

	"outboxlab/core/dialect"
	"outboxlab/core/emission"
	"outboxlab/scenarios"
)

// driveSpec is one drain run: a mode, the options, the entries.
type driveSpec struct {
	mode    emission.Mode
	flags   *drainFlags
	entries []entrySpec
	// host, when set, runs after every pass: the host's own policy (for
	// example quarantine for manual review), returning timeline lines.
	host func(ctx context.Context, s *emission.Store, now time.Time) ([]string, error)
}

// driveRun is a drain run driven to its end, read back from the database.
type driveRun struct {
	recorded
	mode     emission.Mode
	flags    *drainFlags
	owner    string // the drain's name: the Actor of its transitions
	events   []emission.Event
	timeline []string
	story    []string // the timeline without the clock's moves between passes
	alerts   *emission.Alerts
	emitter  *emission.Scripted
	seeded   map[string]emission.Entry // each row as seeded, read back before the drain starts
	rows     map[string][]emission.Entry
	capped   bool // the demo cap stopped the run
	// laterAt is when one more pass ran, a day after the run; zero when the
	// demo cap ended the run instead.
	laterAt time.Time
	// maxRetryCountDefault is the legacy column's declared default, as the database reports it.
	maxRetryCountDefault string
	started              time.Time
	ended                time.Time
}

// drive seeds the entries on the fresh database at location path and drains them in
// spec.mode until nothing is left to do or the demo cap stops the run. After
// every pass it reads back the row of each entry the pass handled: rows[key]
// holds the entry as persisted after each of its transitions, in order.
func drive(ctx context.Context, db dialect.Database, spec driveSpec) (*driveRun, error) {
	store, clk, em, err := openSeeded(ctx, db, spec.entries)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	owner := string(spec.mode) + "-drain"
	d, err := emission.NewDrain(emission.Config{Options: spec.flags.Options, Backoff: spec.flags.backoff(), Mode: spec.mode,
		Owner: owner}, store, em, clk)
	if err != nil {
		return nil, err
	}
	run := &driveRun{mode: spec.mode, flags: spec.flags, owner: owner, alerts: emission.NewAlerts(spec.flags.Options), emitter: em,
		rows: map[string][]emission.Entry{}, started: clk.Now()}
	if run.seeded, err = rowsByKey(ctx, store); err != nil {
		return nil, err
	}
	if err := changelog.Seeded(ctx, clk.Now()); err != nil {
		return nil, err
	}
	recorded := 0 // run.timeline lines already in the change log
	d.Observe(run.alerts.Observe)
	d.Observe(func(ev emission.Event) {
		if ev.Kind != emission.Claimed {
			run.timeline = append(run.timeline, timelineLine(ev, spec.flags.MaxRetryAttempts))
		}
		if ev.Kind != emission.Claimed && ev.Kind != emission.Advanced {
			run.story = append(run.story, timelineLine(ev, spec.flags.MaxRetryAttempts))
		}
	})
	// Every pass emits or moves the clock to the next emission, so a run
	// makes at most two passes per emitter call, and Validate bounded those.
	limit := 2*spec.flags.entriesLoad(spec.entries).calls + 2
	for pass := 0; ; pass++ {
		if pass > limit {
			return nil, fmt.Errorf("the %s drain did not settle after %d passes", spec.mode, limit)
		}
		res, err := d.Pass(ctx)
		if err != nil {
			return nil, err
		}
		run.events = append(run.events, res.Events...)
		if err := run.readBack(ctx, store, res.Events); err != nil {
			return nil, err
		}
		if spec.host != nil {
			lines, err := spec.host(ctx, store, clk.Now())
			if err != nil {
				return nil, err
			}
			run.timeline = append(run.timeline, lines...)
			run.story = append(run.story, lines...)
		}
		if err := recordPass(ctx, clk.Now(), run.timeline, &recorded); err != nil {
			return nil, err
		}
		if res.Idle {
			break
		}
		if !spec.flags.DeadLetterOnMaxRetryAttempts && run.failuresReached(res.Events, spec.flags.RetryCap) {
			run.capped = true
			break
		}
	}
	run.ended = clk.Now()
	if !run.capped {
		run.laterAt = clk.Advance(24 * time.Hour)
		if _, err := d.Pass(ctx); err != nil {
			return nil, err
		}
	}
	return run, run.read(ctx, store)
}

// readBack appends to rows the persisted row of every entry a pass handled.
func (r *driveRun) readBack(ctx context.Context, store *emission.Store, events []emission.Event) error {
	var rows map[string]emission.Entry
	for _, ev := range events {
		if ev.Kind != emission.Handled {
			continue
		}
		if rows == nil {
			var err error
			if rows, err = rowsByKey(ctx, store); err != nil {
				return err
			}
		}
		r.rows[ev.Entry.Key] = append(r.rows[ev.Entry.Key], rows[ev.Entry.Key])
	}
	return nil
}

func rowsByKey(ctx context.Context, store *emission.Store) (map[string]emission.Entry, error) {
	entries, err := store.Entries(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]emission.Entry, len(entries))
	for _, e := range entries {
		out[e.Key] = e
	}
	return out, nil
}

// failuresReached reports whether a pass left some entry live, as its row
// now reads, with at least cap failed attempts: the demo cap.
func (r *driveRun) failuresReached(events []emission.Event, cap int) bool {
	for _, ev := range events {
		if rows := r.rows[ev.Entry.Key]; ev.Kind == emission.Handled && len(rows) > 0 {
			if last := rows[len(rows)-1]; !last.Status.Terminal() && last.RetryCount >= cap {
				return true
			}
		}
	}
	return false
}

func (r *driveRun) read(ctx context.Context, store *emission.Store) (err error) {
	if err := r.readRecorded(ctx, store, r.emitter); err != nil {
		return err
	}
	r.maxRetryCountDefault, err = store.ColumnDefault(ctx, "MaxRetryCount")
	return err
}

// entry returns the final row labelled key.
func (r *driveRun) entry(key string) emission.Entry {
	for _, e := range r.entries {
		if e.Key == key {
			return e
		}
	}
	return emission.Entry{}
}

// driveBoth drains the same entries twice: the store drain on env's main
// database, the claim drain on a second one, "claim".
func driveBoth(ctx context.Context, env scenarios.Env, spec driveSpec) (store, claim *driveRun, err error) {
	spec.mode = emission.StoreMode
	if store, err = drive(env.Recorder.Watch(ctx, "STORE", env.Database), env.Database, spec); err != nil {
		return nil, nil, fmt.Errorf("run the store drain: %w", err)
	}
	spec.mode = emission.ClaimMode
	claimDB, err := env.DB(ctx, "claim")
	if err != nil {
		return nil, nil, err
	}
	if claim, err = drive(env.Recorder.Watch(ctx, "CLAIM", claimDB), claimDB, spec); err != nil {
		return nil, nil, fmt.Errorf("run the claim drain: %w", err)
	}
	return store, claim, nil
}
