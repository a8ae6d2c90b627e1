package ordered

import (
	"context"
	"fmt"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/changelog"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/keyedlog"
)

// recovery is what happens once the fix is deployed.
type recovery int

const (
	noFix       recovery = iota // the run ends when the consumer is idle; nothing is fixed
	redrive                     // the dead letters are copied to the end of the line
	replay                      // replay by correlation id in sequence order, then unblock
	replayTwice                 // the same, then the operator runs the replay again
	resume                      // the paused partition is resumed
)

// design is one way of consuming the log.
type design struct {
	contain    keyedlog.Containment
	dependsOn  bool
	idempotent bool
	publish    bool // publish a failure event with each dead letter
	listen     bool // customer care takes the failure events after every step
	strict     bool // the handler throws on missing earlier state
	classify   bool // a permanent failure is contained at once, a transient one retried
	transient  int  // how often another order's record fails transiently first
	recovery   recovery
	off        string // set when a flag switched the scenario's remedy off: what runs instead
}

// entry is one timeline line: a consumer event, a listener delivery or a note.
type entry struct {
	at       time.Time
	ev       *keyedlog.Event
	delivery *keyedlog.Delivery
	note     string
}

// snapshot is what the order service and the consumer hold at one moment.
type snapshot struct {
	at      time.Time
	states  []orderState
	orphans orphans
	dead    []keyedlog.SetAside
	parked  []keyedlog.SetAside
	waiting []keyedlog.Record
	paused  []int // paused partitions
}

// run is one design driven to its end on its own database.
type run struct {
	design     design
	ids        []int
	log        []keyedlog.Record // as produced
	timeline   []entry
	recorded   int      // timeline entries already in the change log (record)
	idle       snapshot // when the consumer first went idle, before any fix
	end        snapshot
	fixAt      time.Time
	replays    []keyedlog.ReplayResult
	afterEach  [][]orderState // the order table after each replay pass
	redriven   []keyedlog.Event
	holdReads  int    // as the consumer counted them: a cost shown, not checked
	lateDeliv  int    // CustomerCareLog rows a second listener pass at the end added
	calls      []call // the handler's ledger
	finalLog   []keyedlog.Record
	holds      []keyedlog.Hold
	failures   []keyedlog.FailureEvent
	care       []careEntry
	applied    []keyedlog.Application
	tables     []keyedlog.Table
	inOrder    []orderState
	inOrderDLQ int
}

func (o *options) drive(ctx context.Context, db dialect.Database, d design) (*run, error) {
	s, err := keyedlog.Open(ctx, db, ordersSchema)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	clk := clock.New()
	if err := o.produce(ctx, s, o.cancelled, clk.Now()); err != nil {
		return nil, err
	}
	r := &run{design: d, ids: o.orderIDs()}
	if r.log, err = s.Records(ctx); err != nil {
		return nil, err
	}
	if err := changelog.Seeded(ctx, clk.Now()); err != nil {
		return nil, err
	}
	bug := &fault{orderID: o.FailingOrder, typ: o.FailingMessage}
	h := &orderHandler{strict: d.strict, fault: bug, store: s}
	if d.transient > 0 {
		h.transient = &transientFault{orderID: o.transientOrder(), typ: o.FailingMessage, left: d.transient}
	}
	c := &keyedlog.Consumer{Store: s, Clock: clk, Handler: h,
		MaxAttempts: o.MaxAttempts, Backoff: backoff.Backoff{Base: o.BaseBackoff},
		Contain: d.contain, DependsOn: d.dependsOn, Idempotent: d.idempotent}
	if d.classify {
		c.Permanent = permanent
	}
	if d.publish {
		c.FailureEvent = failureEventType
	}
	if err := r.drain(ctx, c, o.stepLimit()); err != nil {
		return nil, err
	}
	if r.idle, err = o.snap(ctx, s, clk.Now()); err != nil {
		return nil, err
	}
	if d.recovery != noFix {
		bug.fixed = true
		r.fixAt = clk.Advance(o.FixAfter)
		r.note(r.fixAt, fmt.Sprintf("FIX DEPLOYED %s after the consumer went idle: %s no longer fails", o.FixAfter, o.FailingMessage))
		h.stage = afterFix
		if err := r.recover(ctx, c, h, orderKey(o.FailingOrder)); err != nil {
			return nil, err
		}
		h.stage = afterFix
		if err := r.drain(ctx, c, o.stepLimit()); err != nil {
			return nil, err
		}
	}
	if d.listen {
		if r.lateDeliv, err = r.secondListenerPass(ctx, s, clk.Now()); err != nil {
			return nil, err
		}
	}
	r.holdReads = c.HoldReads()
	r.calls = h.calls
	if r.end, err = o.snap(ctx, s, clk.Now()); err != nil {
		return nil, err
	}
	return r, r.readLedgers(ctx, s)
}

// drain steps the consumer until it is idle; with failure events on, the
// listener takes what was published after every step.
func (r *run) drain(ctx context.Context, c *keyedlog.Consumer, limit int) error {
	for range limit {
		res, err := c.Step(ctx)
		if err != nil {
			return err
		}
		r.add(res.Events)
		if r.design.listen {
			ds, err := c.Store.Deliver(ctx, c.Clock.Now(), careListener(c.Store))
			if err != nil {
				return err
			}
			for i := range ds {
				r.timeline = append(r.timeline, entry{at: ds[i].At, delivery: &ds[i]})
			}
		}
		if err := r.record(ctx, c.Clock.Now(), &r.recorded); err != nil {
			return err
		}
		if res.Idle {
			return nil
		}
	}
	return fmt.Errorf("the consumer did not settle after %d steps", limit)
}

// secondListenerPass runs customer care once more when everything is done and
// returns how many rows it added to its own log: none, if each event was
// taken once.
func (r *run) secondListenerPass(ctx context.Context, s *keyedlog.Store, now time.Time) (int, error) {
	before, err := readCare(ctx, s.DB())
	if err != nil {
		return 0, err
	}
	if _, err := s.Deliver(ctx, now, careListener(s)); err != nil {
		return 0, err
	}
	after, err := readCare(ctx, s.DB())
	return len(after) - len(before), err
}

// recover deploys the design's way back after the fix; h learns which
// replay pass is calling it.
func (r *run) recover(ctx context.Context, c *keyedlog.Consumer, h *orderHandler, id string) error {
	switch r.design.recovery {
	case redrive:
		r.note(c.Clock.Now(), "REDRIVE: dead letters go to the end of their partition, as resubmitted messages do")
		evs, err := c.Redrive(ctx, "")
		r.redriven = evs
		r.add(evs)
		return err
	case replay, replayTwice:
		passes := 1
		if r.design.recovery == replayTwice {
			passes = 2
		}
		for i := range passes {
			what := "REPLAY " + id + ": its dead and parked records, in sequence order, then unblock it"
			if i > 0 {
				what = "REPLAY " + id + " AGAIN (the operator runs the tool a second time)"
			}
			r.note(c.Clock.Now(), what)
			h.stage = replayPass + stage(i)
			res, err := c.Replay(ctx, id)
			if err != nil {
				return err
			}
			r.replays = append(r.replays, res)
			r.add(res.Events)
			states, err := readStates(ctx, c.Store, r.ids)
			if err != nil {
				return err
			}
			r.afterEach = append(r.afterEach, states)
		}
	case resume:
		parts, err := c.Store.Partitions(ctx)
		if err != nil {
			return err
		}
		for _, p := range parts {
			if p.Paused.IsZero() {
				continue
			}
			ev, err := c.Resume(ctx, p.Partition)
			if err != nil {
				return err
			}
			r.add([]keyedlog.Event{ev})
		}
	}
	return nil
}

func (r *run) add(evs []keyedlog.Event) {
	for i := range evs {
		r.timeline = append(r.timeline, entry{at: evs[i].At, ev: &evs[i]})
	}
}

func (r *run) note(at time.Time, s string) { r.timeline = append(r.timeline, entry{at: at, note: s}) }

func (o *options) snap(ctx context.Context, s *keyedlog.Store, at time.Time) (snapshot, error) {
	sn := snapshot{at: at}
	var err error
	if sn.states, err = readStates(ctx, s, o.orderIDs()); err != nil {
		return sn, err
	}
	if sn.orphans, err = readOrphans(ctx, s); err != nil {
		return sn, err
	}
	if sn.dead, err = s.DeadLetters(ctx); err != nil {
		return sn, err
	}
	if sn.parked, err = s.Parked(ctx); err != nil {
		return sn, err
	}
	if sn.waiting, err = s.Waiting(ctx); err != nil {
		return sn, err
	}
	parts, err := s.Partitions(ctx)
	for _, p := range parts {
		if !p.Paused.IsZero() {
			sn.paused = append(sn.paused, p.Partition)
		}
	}
	return sn, err
}

func (r *run) readLedgers(ctx context.Context, s *keyedlog.Store) error {
	var err error
	if r.finalLog, err = s.Records(ctx); err != nil {
		return err
	}
	if r.holds, err = s.Holds(ctx); err != nil {
		return err
	}
	if r.failures, err = s.FailureEvents(ctx); err != nil {
		return err
	}
	if r.care, err = readCare(ctx, s.DB()); err != nil {
		return err
	}
	if r.applied, err = s.Applications(ctx); err != nil {
		return err
	}
	r.tables, err = s.Tables(ctx)
	return err
}

// inOrder runs the same log through the same handler with no bug and no
// containment: the state every order should end in.
func (o *options) inOrder(ctx context.Context, db dialect.Database, d design) ([]orderState, int, error) {
	s, err := keyedlog.Open(ctx, db, ordersSchema)
	if err != nil {
		return nil, 0, err
	}
	defer s.Close()
	clk := clock.New()
	if err := o.produce(ctx, s, o.cancelled, clk.Now()); err != nil {
		return nil, 0, err
	}
	c := &keyedlog.Consumer{Store: s, Clock: clk, Handler: &orderHandler{strict: d.strict, store: s},
		MaxAttempts: o.MaxAttempts, Backoff: backoff.Backoff{Base: o.BaseBackoff}, Idempotent: true}
	if _, err := c.Drain(ctx, o.stepLimit()); err != nil {
		return nil, 0, fmt.Errorf("in-order run: %w", err)
	}
	dead, err := s.DeadLetters(ctx)
	if err != nil {
		return nil, 0, err
	}
	states, err := readStates(ctx, s, o.orderIDs())
	return states, len(dead), err
}
