package governance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/emission"
	"outboxlab/core/provider"
	"outboxlab/core/report"
)

// replayRun is the outage, the review and the replays, read back from the database.
type replayRun struct {
	recorded
	lines           []string
	events          []emission.Event
	alerts          *emission.Alerts
	emitter         *emission.Scripted
	throttle        *provider.Throttle // acme-audit's capacity from the review on, and its ledger
	before          []emission.Entry   // the originals just before the host's review
	capped          bool               // the demo cap stopped the outage drain
	review          time.Time          // when the host reviewed: ReviewAfter after the start, or when the outage drain ended if later
	reviewCalls     [2]int             // the ledger's calls[from:till] are the drain pass's at review time
	unauthorized    error              // the refusal of the replay without an approval
	writtenByNoAuth int                // entries + remediations the refused replay added
	uncaused        error              // the refusal of the approved replay with no cause or fix recorded
	writtenByNoFix  int                // entries + remediations that refused replay added
	confirmed       int                // originals whose terminal transition the runbook found persisted
	hidden          int                // outage lines left out of the default timeline
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

// hostIndent starts the continuation of a host line, under its text.
const hostIndent = "                     "

func (r *replayRun) host(at time.Time, format string, args ...any) {
	r.lines = append(r.lines, wrapFields(fmt.Sprintf("%s  host  %s", clock.DayStamp(at), fmt.Sprintf(format, args...)), hostIndent))
}

func (o *replayOptions) replay(ctx context.Context, db dialect.Database) (*replayRun, error) {
	store, clk, em, err := openSeeded(ctx, db, o.specs())
	if err != nil {
		return nil, err
	}
	defer store.Close()
	throttled := &throttledEmitter{Scripted: em, throttle: provider.NewThrottle(o.Capacity, o.Window)}
	d, err := emission.NewDrain(emission.Config{Options: o.drain.Options, Backoff: o.drain.backoff(), Mode: emission.ClaimMode, Owner: "claim-drain"}, store, throttled, clk)
	if err != nil {
		return nil, err
	}
	run := &replayRun{alerts: emission.NewAlerts(o.drain.Options), emitter: em, throttle: throttled.throttle, started: clk.Now()}
	d.Observe(run.alerts.Observe)
	first := o.specs()[0].Key
	d.Observe(func(ev emission.Event) {
		run.events = append(run.events, ev)
		switch {
		case ev.Kind == emission.Claimed:
		case !o.verbose && run.review.IsZero() && (ev.Kind == emission.Advanced || ev.Entry.Key != first):
			// The outage treats every original alike: by default only the first one's lines.
			run.hidden++
		default:
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
	throttled.on = true // acme-audit is healthy again, within its capacity
	run.reviewCalls[0] = len(em.Calls())
	later, err := d.Pass(ctx)
	if err != nil {
		return nil, err
	}
	run.reviewCalls[1] = len(em.Calls())
	run.host(clk.Now(), "review; a drain pass selects %d entries: the drain never replays a dead-letter", later.Selected)
	if err := o.refuseUnauthorized(ctx, store, clk.Now(), run); err != nil {
		return nil, err
	}
	if err := o.refuseUncaused(ctx, store, clk.Now(), run); err != nil {
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

// rowsWritten counts the entries and remediation records in s.
func rowsWritten(ctx context.Context, s *emission.Store) (int, error) {
	es, err := s.Entries(ctx)
	if err != nil {
		return 0, err
	}
	rs, err := s.Remediations(ctx)
	return len(es) + len(rs), err
}

// refuseUncaused tries an approved replay before the runbook has recorded a
// cause and a fix, which must write nothing.
func (o *replayOptions) refuseUncaused(ctx context.Context, s *emission.Store, now time.Time, run *replayRun) error {
	n0, err := rowsWritten(ctx, s)
	if err != nil {
		return err
	}
	_, run.uncaused = s.Replay(ctx, run.before[0].ID, now, o.authorization(time.Time{}, time.Time{}))
	if run.uncaused != nil && !errors.Is(run.uncaused, emission.ErrReplayNoCause) {
		return run.uncaused
	}
	n1, err := rowsWritten(ctx, s)
	run.writtenByNoFix = n1 - n0
	run.host(now, "approved replay of %s, no cause or fix recorded: %v, %d rows written", run.before[0].Key,
		shortRefusal(run.uncaused), run.writtenByNoFix)
	return err
}

// runbook is the host's review before any replay: confirm that the store
// answers and that each original's terminal transition was persisted (the
// row and its applied transition in the log), classify the cause from the
// rows, record the fix. It returns the cause and fix for each original.
func (o *replayOptions) runbook(ctx context.Context, s *emission.Store, now time.Time, run *replayRun, originals []emission.Entry) (map[int64]emission.Remediation, error) {
	log, err := s.Transitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("runbook: the store did not answer: %w", err)
	}
	out := map[int64]emission.Remediation{}
	causes := map[emission.Cause][]string{}
	var order []emission.Cause
	for _, orig := range originals {
		row, err := s.EntryByKey(ctx, orig.Key)
		if err != nil {
			return nil, fmt.Errorf("runbook: %w", err)
		}
		persisted := false
		for _, l := range log {
			persisted = persisted || (l.EntryID == row.ID && l.Applied && l.To == emission.DeadLettered)
		}
		if row.Status != emission.DeadLettered || !persisted {
			run.host(now, "runbook: %s's dead-letter is not persisted: no replay", orig.Key)
			continue
		}
		run.confirmed++
		c := causeOf(row.LastErrorCode)
		if c == "" {
			run.host(now, "runbook: %s's cause (%s) is not classified: no replay", orig.Key, report.Dash(row.LastErrorCode))
			continue
		}
		if len(causes[c]) == 0 {
			order = append(order, c)
		}
		causes[c] = append(causes[c], row.LastErrorCode)
		out[orig.ID] = emission.Remediation{Cause: c, Fix: fixFor(c)}
	}
	run.host(now, "runbook: store healthy, %d of %d dead-letters persisted with their transition", run.confirmed, len(originals))
	for _, c := range order {
		run.host(now, "runbook: cause %s (%s on %s); fix: %s", c, causes[c][0], report.Plural(len(causes[c]), "entry"), fixFor(c))
	}
	return out, nil
}

// refuseUnauthorized tries a replay with no approval, which must write nothing.
func (o *replayOptions) refuseUnauthorized(ctx context.Context, s *emission.Store, now time.Time, run *replayRun) error {
	count := func() (int, error) { return rowsWritten(ctx, s) }
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
	run.host(now, "replay of %s with no approval: %v, %d rows written", run.before[0].Key, shortRefusal(run.unauthorized), run.writtenByNoAuth)
	return err
}

// shortRefusal is errText without the reason, for a timeline line (the check names it).
func shortRefusal(err error) string {
	if err == nil {
		return "ACCEPTED"
	}
	return "REFUSED"
}

func errText(err error) string {
	if err == nil {
		return "ACCEPTED"
	}
	for _, known := range []error{emission.ErrReplayNotAuthorized, emission.ErrReplayNoCause} {
		if errors.Is(err, known) {
			return "REFUSED (" + known.Error() + ")"
		}
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
	fixed, err := o.runbook(ctx, s, clk.Now(), run, originals)
	if err != nil {
		return err
	}
	for i := 0; i < len(originals); i += o.ReplayBatch {
		if i > 0 {
			clk.Advance(o.Interval)
		}
		batch := replayBatch{at: clk.Now(), from: len(run.emitter.Calls())}
		replayed := map[string]emission.Entry{}
		var said []string
		kept := map[int]bool{}
		for _, orig := range originals[i:min(i+o.ReplayBatch, len(originals))] {
			if orig.Key == o.RejectedKey {
				run.emitter.Script(orig.Key+"-R1", emission.Reject("provider.schema_rejected", "payload failed provider schema validation"))
			}
			fix, ok := fixed[orig.ID]
			if !ok {
				continue
			}
			a := auth
			a.Cause, a.Fix = fix.Cause, fix.Fix
			e, err := s.Replay(ctx, orig.ID, clk.Now(), a)
			if err != nil {
				return err
			}
			batch.keys = append(batch.keys, e.Key)
			replayed[orig.Key] = e
			said = append(said, orig.Key+" as "+e.Key)
			kept[orig.RetryCount] = true
		}
		if len(said) > 0 {
			counts := make([]int, 0, len(kept))
			for n := range kept {
				counts = append(counts, n)
			}
			slices.Sort(counts)
			run.host(clk.Now(), "replays %s (%s; the originals keep RetryCount %s)", strings.Join(said, ", "), auth.Ticket, report.JoinInts(counts))
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
				run.host(now, "incident #%d (%s) stays open: no provider receipt for %s", in.ID, orig.Key, rep.Key)
				continue
			}
			if err := s.CloseIncident(ctx, in.ID, now, "ops-oncall (r.okafor)", receipt); err != nil {
				return err
			}
			if o.CloseWithoutReceipt {
				run.host(now, "closes incident #%d (%s) citing ticket %s, without asking the provider about %s", in.ID, orig.Key, receipt, rep.Key)
				continue
			}
			run.host(now, "closes incident #%d (%s): the provider's receipt %s for %s", in.ID, orig.Key, receipt, rep.Key)
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
