package wassal

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// shutdownRun is one design of the shutdown pair driven to its end.
type shutdownRun struct {
	drains, countRelease bool
	lines                []string
	claims               []claim18
	stop, deadline, kill time.Time // the stop; the AFTER's drain deadline and the supervisor's KILL
	gone                 time.Time // worker-a exited or was killed
	killed               bool
	restarted            time.Time // worker-b started
	atStop, atGone       []outbox.Message
	atDeadline           []outbox.Message // the rows right after the deadline's releases (AFTER)
	releases             []release18
	ignored              []string // keys whose handler ignored the cancel
	ended                time.Time
	ledger               Ledger
	notifications        []notification
	tables               []outbox.Table
	prov                 *provider.Provider
}

// release18 is one release at the drain deadline and the row read right
// before and right after it.
type release18 struct {
	key           string
	at            time.Time
	before, after outbox.Message
}

// shutdown18 drives one design: an event loop on the scenario clock over
// worker-a's handlers, the stop, the drain deadline, the KILL and worker-b.
type shutdown18 struct {
	o         *shutdownOptions
	run       *shutdownRun
	clk       *clock.ScenarioClock
	a, b      *outboxWorker
	jobs      []*job18
	stopped   bool
	gone      bool
	cancelled bool // the drain deadline has passed
	aPollNow  bool // worker-a polls at once (at the start, or a handler returned)
	bStarted  bool
	bPolled   bool
	bPollNow  bool
}

func (o *shutdownOptions) drive(ctx context.Context, db dialect.Database, after bool) (*shutdownRun, error) {
	design := Day(16)
	setup, err := design.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer setup.Close()
	if err := setup.CreateTable(ctx, notificationsSchema); err != nil {
		return nil, fmt.Errorf("create the notifications table: %w", err)
	}
	if err := SeedDurableOutbox(ctx, setup, shutdownPays, 0, clock.Start); err != nil {
		return nil, err
	}
	if err := changelog.Seeded(ctx, clock.Start); err != nil {
		return nil, err
	}
	prov := provider.New(provider.Rule{Outcome: provider.Paid})
	d := &shutdown18{o: o, clk: clock.New(), aPollNow: true,
		run: &shutdownRun{drains: after, countRelease: o.CountRelease, prov: prov}}
	for _, w := range []**outboxWorker{&d.a, &d.b} { // each worker has its own connections
		store, err := design.OpenExisting(ctx, db)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		*w = &outboxWorker{fenced: true, store: store, prov: prov, lease: shutdownLease}
	}
	d.a.id, d.b.id = "worker-a", "worker-b"
	if err := d.loop(ctx); err != nil {
		return nil, err
	}
	d.run.ended = d.clk.Now()
	return d.run, d.finish(ctx, setup)
}

func (d *shutdown18) say(at time.Time, key, text string) {
	d.run.lines = append(d.run.lines, eventLine(at, key, text))
}

// loop runs the next act until none is left; each act is a step of the
// change log.
func (d *shutdown18) loop(ctx context.Context) error {
	for step := 0; ; step++ {
		if step > 10000 {
			return fmt.Errorf("the workers did not settle after %d steps", step)
		}
		at, act, err := d.next(ctx)
		if err != nil || act == nil {
			return err
		}
		now := d.clk.AdvanceTo(at)
		from := len(d.run.lines)
		if err := act(ctx, now); err != nil {
			return err
		}
		if err := changelog.Event(ctx, now, strings.Join(d.run.lines[from:], "\n")); err != nil {
			return err
		}
	}
}

// next is the earliest act; on a tie, a handler returning, the stop,
// worker-a's poll, the deadline, the KILL, worker-b starting, its poll.
func (d *shutdown18) next(ctx context.Context) (time.Time, act18, error) {
	var at time.Time
	var act act18
	rank := 0
	consider := func(t time.Time, r int, a act18) {
		if act == nil || t.Before(at) || (t.Equal(at) && r < rank) {
			at, act, rank = t, a, r
		}
	}
	now, stop := d.clk.Now(), clock.Start.Add(d.o.StopAt)
	for _, j := range d.jobs {
		consider(j.ends, 0, func(ctx context.Context, now time.Time) error { return d.complete(ctx, j, now) })
	}
	if !d.stopped {
		consider(stop, 1, d.stop)
		if d.aPollNow && d.held(d.a) < shutdownSlots {
			consider(now, 2, d.pollA)
		}
	}
	if d.run.drains && d.stopped && !d.gone {
		if !d.cancelled {
			consider(stop.Add(d.o.Drain), 3, d.deadline)
		}
		consider(stop.Add(shutdownGrace), 4, d.kill)
	}
	if d.gone && !d.bStarted {
		consider(d.run.gone.Add(d.o.Restart), 5, d.startB)
	}
	if d.bStarted && d.held(d.b) == 0 {
		t, ok, err := d.bPollAt(ctx, now)
		if err != nil {
			return at, nil, err
		}
		if ok {
			consider(t, 6, d.pollB)
		}
	}
	return at, act, nil
}

// held is how many handlers w runs.
func (d *shutdown18) held(w *outboxWorker) int {
	n := 0
	for _, j := range d.jobs {
		if j.w == w {
			n++
		}
	}
	return n
}

// bPollAt is when worker-b polls next: at its start, at once after a
// message, else just past the next lease end.
func (d *shutdown18) bPollAt(ctx context.Context, now time.Time) (time.Time, bool, error) {
	if !d.bPolled || d.bPollNow {
		return now, true, nil
	}
	end, ok, err := d.b.store.NextWakeup(ctx, now)
	return end.Add(time.Millisecond), ok, err
}

// take has w claim up to n messages and ask the provider about each; each
// handler then runs for handler(key).
func (d *shutdown18) take(ctx context.Context, w *outboxWorker, now time.Time, n int, handler func(string) time.Duration) (int, error) {
	claims, err := w.claim(ctx, now, n)
	if err != nil {
		return 0, err
	}
	for _, c := range claims {
		d.run.claims = append(d.run.claims, claim18{key: c.Key, worker: w.id, at: now, token: c.Token, attempt: c.Attempt})
		a, err := w.prov.CheckStatus(ctx, c.Key, now)
		if err != nil {
			return 0, err
		}
		h := handler(c.Key)
		d.jobs = append(d.jobs, &job18{w: w, c: c, a: a, claimed: now, ends: now.Add(h)})
		d.say(now, c.Key, fmt.Sprintf("%s %s → status check → %s → %s", w.id, w.claimText(c), answerText(a), d.handlerText(w, c.Key, h)))
	}
	return len(claims), nil
}

func (d *shutdown18) handlerText(w *outboxWorker, key string, h time.Duration) string {
	switch {
	case w == d.b:
		return "its handler takes " + durationText(h)
	case keyIndex(key) == shutdownHangOf:
		return "its handler hangs " + durationText(h) + " and ignores a cancel"
	case keyIndex(key) == 2:
		return "its handler takes " + durationText(h) + " (a cancel ends it)"
	}
	return "its handler takes " + durationText(h)
}

func (d *shutdown18) pollA(ctx context.Context, now time.Time) error {
	d.aPollNow = false
	n, err := d.take(ctx, d.a, now, shutdownSlots-d.held(d.a), d.o.handlerOf)
	if err == nil && n == 0 {
		d.say(now, "", "worker-a polls: nothing left to claim")
	}
	return err
}

func (d *shutdown18) startB(ctx context.Context, now time.Time) error {
	d.bStarted, d.run.restarted = true, now
	d.say(now, "", fmt.Sprintf("worker-b starts, the replacement (%s after worker-a is gone)", durationText(d.o.Restart)))
	return nil
}

// pollB has worker-b claim one message; finding none, it waits.
func (d *shutdown18) pollB(ctx context.Context, now time.Time) error {
	d.bPolled, d.bPollNow = true, false
	n, err := d.take(ctx, d.b, now, 1, func(string) time.Duration { return quickHandler })
	if err != nil || n > 0 {
		return err
	}
	end, waiting, err := d.b.store.NextWakeup(ctx, now)
	switch {
	case err != nil:
		return err
	case waiting:
		d.say(now, "", fmt.Sprintf("worker-b polls: nothing claimable; it polls again just past the next lease end (now %s)", clock.Stamp(end)))
	default:
		d.say(now, "", "worker-b polls: nothing left to claim or wait for")
	}
	return nil
}

// drop forgets w's handlers: its process is gone.
func (d *shutdown18) drop(w *outboxWorker) {
	d.jobs = slices.DeleteFunc(d.jobs, func(j *job18) bool { return j.w == w })
}

// rows reads the outbox as it stands.
func (d *shutdown18) rows(ctx context.Context) ([]outbox.Message, error) {
	return d.b.store.Messages(ctx)
}

// heldKeys are the keys of the rows w holds (Processing, its LockedBy).
func heldKeys(rows []outbox.Message, worker string) []string {
	var keys []string
	for _, m := range rows {
		if m.Status == outbox.Processing && m.LockedBy == worker {
			keys = append(keys, m.Key)
		}
	}
	return keys
}

// leaveA records worker-a gone at now, the rows as it left them.
func (d *shutdown18) leaveA(ctx context.Context, now time.Time, killed bool) error {
	rows, err := d.rows(ctx)
	d.gone, d.run.gone, d.run.killed, d.run.atGone = true, now, killed, rows
	d.drop(d.a)
	return err
}
