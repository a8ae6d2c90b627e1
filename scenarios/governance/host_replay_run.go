package governance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// replayRun is the outage, the review and the replays, read back from the database.
type replayRun struct {
	recorded
	lines           []string
	events          []emission.Event
	alerts          *emission.Alerts
	emitter         *emission.Scripted
	before          []emission.Entry // the originals just before the host's review
	capped          bool             // the demo cap stopped the outage drain
	review          time.Time        // when the host reviewed: ReviewAfter after the start, or when the outage drain ended if later
	reviewCalls     [2]int           // the ledger's calls[from:till] are the drain pass's at review time
	unauthorized    error            // the refusal of the replay without an approval
	writtenByNoAuth int              // entries + remediations the refused replay added
	batches         []replayBatch
	incidents       []emission.Incident
	started         time.Time
	ended           time.Time
}

// replayBatch is one release of replays and the provider calls that drained it.
type replayBatch struct {
	at         time.Time
	keys       []string // replay entry keys released
	from, till int      // its calls are the ledger's calls[from:till]
}

func (r *replayRun) host(at time.Time, format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf("%s  host  %s", clock.DayStamp(at), fmt.Sprintf(format, args...)))
}

func (o *replayOptions) replay(ctx context.Context, path string) (*replayRun, error) {
	store, clk, em, err := openSeeded(ctx, path, o.specs())
	if err != nil {
		return nil, err
	}
	defer store.Close()
	d, err := emission.NewDrain(emission.Config{Options: o.drain.Options, Backoff: o.drain.backoff(), Mode: emission.ClaimMode, Owner: "claim-drain"}, store, em, clk)
	if err != nil {
		return nil, err
	}
	run := &replayRun{alerts: emission.NewAlerts(o.drain.Options), emitter: em, started: clk.Now()}
	d.Observe(run.alerts.Observe)
	d.Observe(func(ev emission.Event) {
		run.events = append(run.events, ev)
		if ev.Kind != emission.Claimed {
			run.lines = append(run.lines, timelineLine(ev, o.drain.MaxRetryAttempts))
		}
	})
	if run.capped, err = o.drainAndOpen(ctx, d, store, clk, run); err != nil {
		return nil, err
	}
	if run.before, err = store.Entries(ctx); err != nil {
		return nil, err
	}
	run.review = clk.AdvanceTo(run.started.Add(o.ReviewAfter))
	run.reviewCalls[0] = len(em.Calls())
	later, err := d.Pass(ctx)
	if err != nil {
		return nil, err
	}
	run.reviewCalls[1] = len(em.Calls())
	run.host(clk.Now(), "review starts; a drain pass selects %d entries: the drain never replays a dead-letter", later.Selected)
	if err := o.refuseUnauthorized(ctx, store, clk.Now(), run); err != nil {
		return nil, err
	}
	if err := o.replayInBatches(ctx, d, store, clk, run); err != nil {
		return nil, err
	}
	run.ended = clk.Now()
	return run, run.read(ctx, store)
}

// drainAndOpen drains until idle; after every pass the host opens an incident
// for each new dead-letter. With dead-lettering off nothing ends a failing
// entry, so the demo cap stops the drain once a live entry has failed
// RetryCap times, and capped says so.
func (o *replayOptions) drainAndOpen(ctx context.Context, d *emission.Drain, s *emission.Store, clk *clock.ScenarioClock, run *replayRun) (capped bool, err error) {
	// Every pass emits or moves the clock to the next emission; Validate bounded the emissions.
	limit := 2*o.load().calls + 2
	for range limit {
		res, err := d.Pass(ctx)
		if err != nil {
			return false, err
		}
		n, err := s.OpenIncidents(ctx, clk.Now())
		if err != nil {
			return false, err
		}
		if n > 0 {
			run.host(clk.Now(), "opens %s for the new dead-letters", report.Plural(n, "incident"))
		}
		if res.Idle {
			return false, nil
		}
		if !o.drain.DeadLetterOnMaxRetryAttempts {
			if capped, err := liveAtCap(ctx, s, o.drain.RetryCap); capped || err != nil {
				return capped, err
			}
		}
	}
	return false, fmt.Errorf("the claim drain did not settle after %d passes", limit)
}

// liveAtCap reports whether a live entry has failed at least cap times, as persisted.
func liveAtCap(ctx context.Context, s *emission.Store, cap int) (bool, error) {
	entries, err := s.Entries(ctx)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if !e.Status.Terminal() && e.RetryCount >= cap {
			return true, nil
		}
	}
	return false, nil
}

// refuseUnauthorized tries a replay with no approval, which must write nothing.
func (o *replayOptions) refuseUnauthorized(ctx context.Context, s *emission.Store, now time.Time, run *replayRun) error {
	count := func() (int, error) {
		es, err := s.Entries(ctx)
		if err != nil {
			return 0, err
		}
		rs, err := s.Remediations(ctx)
		return len(es) + len(rs), err
	}
	n0, err := count()
	if err != nil {
		return err
	}
	attempt := o.authorization(time.Time{}, time.Time{})
	attempt.Approval = ""
	_, run.unauthorized = s.Replay(ctx, run.before[0].ID, now, attempt)
	if run.unauthorized != nil && !errors.Is(run.unauthorized, emission.ErrReplayNotAuthorized) {
		return run.unauthorized
	}
	n1, err := count()
	run.writtenByNoAuth = n1 - n0
	run.host(now, "replay of %s without an approval → %v; %d rows written", run.before[0].Key, errText(run.unauthorized), run.writtenByNoAuth)
	return err
}

func errText(err error) string {
	if err == nil {
		return "ACCEPTED"
	}
	if errors.Is(err, emission.ErrReplayNotAuthorized) {
		return "REFUSED (" + emission.ErrReplayNotAuthorized.Error() + ")"
	}
	return "REFUSED (" + err.Error() + ")"
}

// replayInBatches replays every dead-lettered original, ReplayBatch at a
// time: release, drain to idle, then close each incident whose replay the
// provider confirms with a receipt.
func (o *replayOptions) replayInBatches(ctx context.Context, d *emission.Drain, s *emission.Store, clk *clock.ScenarioClock, run *replayRun) error {
	var originals []emission.Entry
	for _, e := range run.before {
		if e.Status == emission.DeadLettered {
			originals = append(originals, e)
		}
	}
	if len(originals) == 0 {
		return nil
	}
	auth := o.authorization(originals[0].CreatedAt, originals[len(originals)-1].DeadLetteredAt)
	for i := 0; i < len(originals); i += o.ReplayBatch {
		if i > 0 {
			clk.Advance(o.Interval)
		}
		batch := replayBatch{at: clk.Now(), from: len(run.emitter.Calls())}
		replayed := map[string]emission.Entry{}
		for _, orig := range originals[i:min(i+o.ReplayBatch, len(originals))] {
			if orig.Key == o.RejectedKey {
				run.emitter.Script(orig.Key+"-R1", emission.Reject("provider.schema_rejected", "payload failed provider schema validation"))
			}
			e, err := s.Replay(ctx, orig.ID, clk.Now(), auth)
			if err != nil {
				return err
			}
			batch.keys = append(batch.keys, e.Key)
			replayed[orig.Key] = e
			run.host(clk.Now(), "replays %s as %s (approval %s, ticket %s; %s keeps RetryCount %d and its reason)",
				orig.Key, e.Key, auth.Approval, auth.Ticket, orig.Key, orig.RetryCount)
		}
		if _, err := o.drainAndOpen(ctx, d, s, clk, run); err != nil {
			return err
		}
		batch.till = len(run.emitter.Calls())
		run.batches = append(run.batches, batch)
		if err := o.closeOnReceipt(ctx, s, clk.Now(), run, originals[i:min(i+o.ReplayBatch, len(originals))], replayed); err != nil {
			return err
		}
	}
	return nil
}

// closeOnReceipt asks the provider for each replay's receipt and closes the
// original's incident only when there is one.
func (o *replayOptions) closeOnReceipt(ctx context.Context, s *emission.Store, now time.Time, run *replayRun, originals []emission.Entry, replayed map[string]emission.Entry) error {
	incidents, err := s.Incidents(ctx)
	if err != nil {
		return err
	}
	for _, orig := range originals {
		rep := replayed[orig.Key]
		for _, in := range incidents {
			if in.EntryID != orig.ID || !in.Open {
				continue
			}
			receipt, ok := run.emitter.Receipt(rep.Key)
			if o.CloseWithoutReceipt {
				receipt, ok = o.authorization(time.Time{}, time.Time{}).Ticket, true
			}
			if !ok {
				run.host(now, "incident #%d (%s) stays open: the provider holds no receipt for %s", in.ID, orig.Key, rep.Key)
				continue
			}
			if err := s.CloseIncident(ctx, in.ID, now, "ops-oncall (r.okafor)", receipt); err != nil {
				return err
			}
			if o.CloseWithoutReceipt {
				run.host(now, "closes incident #%d (%s) citing ticket %s, without asking the provider about %s", in.ID, orig.Key, receipt, rep.Key)
				continue
			}
			run.host(now, "closes incident #%d (%s): the provider confirms %s with receipt %s", in.ID, orig.Key, rep.Key, receipt)
		}
	}
	return nil
}

func (r *replayRun) read(ctx context.Context, s *emission.Store) (err error) {
	if err := r.readRecorded(ctx, s, r.emitter); err != nil {
		return err
	}
	r.incidents, err = s.Incidents(ctx)
	return err
}
