package governance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// The two workers' names: each is the Actor of its transitions and the
// ClaimOwner of its claims.
const (
	workerA = "worker-A"
	workerB = "worker-B"
)

// staleRun is one design's run of the interleaving, read back from the database.
type staleRun struct {
	recorded // the ledger's first call is worker-A's one call
	fenced   bool
	dialect  dialect.Dialect // the database's
	max      int             // MaxRetryAttempts
	mu       sync.Mutex
	lines    []string
	events   []emission.Event
	leaseEnd time.Time      // A's lease
	answerAt time.Time      // when A's provider call returns
	afterA   emission.Entry // the row as it reads right after A's write
	emitter  *emission.Scripted
	claims   []claimSeen // every claim, as the row read right after it
	alerts   *emission.Alerts
	refused  int64 // refusals counted by the two store handles
	refusedL int   // refusals in the transition log
	claimErr error // a claim whose row could not be read back
	started  time.Time
	ended    time.Time
}

func (r *staleRun) record(ev emission.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	r.lines = append(r.lines, r.line(ev))
}

// claimSeen is one claim as persisted: the row read back right after it.
type claimSeen struct {
	worker string
	row    emission.Entry
	at     time.Time // when the worker called the provider under it (the ledger); set by metrics
}

// observeClaims reads the row back after every claim worker makes through s.
func (r *staleRun) observeClaims(ctx context.Context, worker string, s *emission.Store) func(emission.Event) {
	return func(ev emission.Event) {
		if ev.Kind != emission.Claimed {
			return
		}
		row, err := s.EntryByKey(ctx, ev.Entry.Key)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.claimErr = err
			return
		}
		r.claims = append(r.claims, claimSeen{worker: worker, row: row})
	}
}

func (r *staleRun) note(at time.Time, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, wrapFields(fmt.Sprintf("%s  %-8s %s", clock.DayStamp(at), "—", fmt.Sprintf(format, args...)),
		strings.Repeat(" ", 24)))
}

// race runs the interleaving on a fresh database at path: two store handles
// (two connections), worker A in its own goroutine, worker B in this one.
func (o *staleOptions) race(ctx context.Context, db dialect.Database, fenced bool) (*staleRun, error) {
	return o.raceOn(ctx, db, fenced, o.spec())
}

// raceOn runs the interleaving on spec's entry: race is GOV-001, which B
// delivers; the dead-letter race is GOV-002, which B dead-letters.
func (o *staleOptions) raceOn(ctx context.Context, db dialect.Database, fenced bool, spec entrySpec) (*staleRun, error) {
	stA, clk, em, err := openSeeded(ctx, db, []entrySpec{spec})
	if err != nil {
		return nil, err
	}
	defer stA.Close()
	stB, err := emission.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer stB.Close()
	run := &staleRun{fenced: fenced, dialect: stA.Dialect(), max: o.drain.MaxRetryAttempts, emitter: em, alerts: emission.NewAlerts(o.drain.Options), started: clk.Now()}
	run.answerAt = run.started.Add(o.SlowEmit)
	slow := &slowEmitter{inner: em, entered: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(slow.release) }) }
	defer release() // on any early return, A's call ends instead of waiting forever
	drainA, err := o.worker(ctx, workerA, stA, slow, clk, run)
	if err != nil {
		return nil, err
	}
	drainB, err := o.worker(ctx, workerB, stB, em, clk, run)
	if err != nil {
		return nil, err
	}

	doneA := make(chan error, 1)
	go func() {
		_, err := drainA.Pass(ctx)
		doneA <- err
	}()
	select {
	case <-slow.entered:
	case err := <-doneA:
		return nil, fmt.Errorf("worker A never reached the provider: %v", err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	run.leaseEnd = run.events[0].LeaseUntil
	run.note(run.started, "worker-A's provider call is open; the provider will answer at %s", clock.DayStamp(run.answerAt))
	finishA := func() error {
		clk.AdvanceTo(run.answerAt)
		release()
		if err := <-doneA; err != nil {
			return err
		}
		if run.afterA, err = stB.EntryByKey(ctx, spec.Key); err != nil {
			return err
		}
		run.note(clk.Now(), "%s now reads %s", spec.Key, rowText(run.afterA))
		return nil
	}
	if !run.answerAt.After(run.leaseEnd) {
		if err := finishA(); err != nil {
			return nil, err
		}
	}
	clk.AdvanceTo(run.leaseEnd.Add(wakeupSlack))
	if run.answerAt.After(run.leaseEnd) {
		run.note(clk.Now(), "worker-A's lease ended at %s; its provider call is still open", clock.DayStamp(run.leaseEnd))
	}
	if _, err := drainB.Pass(ctx); err != nil {
		return nil, err
	}
	if run.answerAt.After(run.leaseEnd) {
		if err := finishA(); err != nil {
			return nil, err
		}
	}
	if err := drainToIdle(ctx, drainB); err != nil {
		return nil, err
	}
	run.ended = clk.Now()
	return run, run.read(ctx, stA, stB)
}

func (o *staleOptions) worker(ctx context.Context, name string, s *emission.Store, em emission.Emitter, clk *clock.ScenarioClock, run *staleRun) (*emission.Drain, error) {
	d, err := emission.NewDrain(emission.Config{Options: o.drain.Options, Backoff: o.drain.backoff(), Mode: emission.ClaimMode,
		Owner: name, Lease: o.Lease, Batch: 1, Unfenced: !run.fenced}, s, em, clk)
	if err != nil {
		return nil, err
	}
	d.Observe(run.alerts.Observe)
	d.Observe(run.observeClaims(ctx, name, s))
	d.Observe(run.record)
	return d, nil
}

// drainToIdle runs passes until nothing is left to wait for.
func drainToIdle(ctx context.Context, d *emission.Drain) error {
	for range 1000 {
		res, err := d.Pass(ctx)
		if err != nil || res.Idle {
			return err
		}
	}
	return fmt.Errorf("worker B did not settle after 1000 passes")
}

func (r *staleRun) read(ctx context.Context, stA, stB *emission.Store) (err error) {
	if r.claimErr != nil {
		return r.claimErr
	}
	r.refused = stA.Refused() + stB.Refused()
	if err := r.readRecorded(ctx, stA, r.emitter); err != nil {
		return err
	}
	r.refusedL, err = stA.RefusedTransitions(ctx)
	return err
}

// rowText says what a row holds, in one phrase.
func rowText(e emission.Entry) string {
	s := fmt.Sprintf("%s, RetryCount %d", e.Status, e.RetryCount)
	if !e.NextRetryAt.IsZero() {
		s += ", due " + clock.DayStamp(e.NextRetryAt)
	}
	if e.ClaimOwner != "" {
		s += fmt.Sprintf(", owned by %s (token %d)", e.ClaimOwner, e.ClaimToken)
	} else {
		s += fmt.Sprintf(", token %d", e.ClaimToken)
	}
	if e.ReasonCode != "" {
		s += ", reason " + e.ReasonCode
	}
	return s
}

// line renders one worker event.
func (r *staleRun) line(ev emission.Event) string {
	head := fmt.Sprintf("%s  %-8s ", clock.DayStamp(ev.At), ev.Drainer)
	switch ev.Kind {
	case emission.Advanced:
		return fmt.Sprintf("%snothing due → clock to %s (next due %s + 1 ms)", head,
			clock.DayStamp(ev.Due.Add(wakeupSlack)), clock.DayStamp(ev.Due))
	case emission.Claimed:
		return fmt.Sprintf("%s%s  claims it: token %d, lease until %s", head, ev.Entry.Key, ev.Token, clock.DayStamp(ev.LeaseUntil))
	}
	emit := ""
	if !ev.EmittedAt.Equal(ev.At) {
		emit = fmt.Sprintf("its %s call answers: ", clock.DayStamp(ev.EmittedAt))
	}
	line := fmt.Sprintf("%s%s  [token %d] %s%s", head, ev.Entry.Key, ev.Token, emit, resultText(ev))
	rest := "→ " + transitionText(ev.Transition, r.max)
	switch {
	case ev.Kind == emission.Refused:
		rest += " → REFUSED: not its claim now"
	case !r.fenced:
		rest += " → written by Id alone"
	default:
		rest += " → written under the claim"
	}
	if report.Width(line+" "+rest) <= report.MaxWidth {
		return line + " " + rest
	}
	// Too wide for a terminal: the persisted transition goes on its own line.
	return line + "\n" + strings.Repeat(" ", len(head)) + rest
}
