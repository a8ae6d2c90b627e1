package wassal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// day18 drives one design through the scenario's acts on one database: an
// event loop on the scenario clock over the handlers in flight, their
// renewals (AFTER) and worker-c's polls.
type day18 struct {
	o       *session18Options
	run     *session18Run
	clk     *clock.ScenarioClock
	a, b, c *outboxWorker
	jobs    []*job18
	polled  bool // worker-c has polled once
	pollNow bool // worker-c polls at once (it just finished a message)
}

// job18 is one handler in flight: its claim, the answer it got, when it returns.
type job18 struct {
	w        *outboxWorker
	c        outbox.Claim
	a        provider.Answer
	claimed  time.Time
	ends     time.Time
	renewing bool
}

func (o *session18Options) drive(ctx context.Context, db dialect.Database, after bool) (*session18Run, error) {
	design := Day(16)
	setup, err := design.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer setup.Close()
	if err := setup.CreateTable(ctx, notificationsSchema); err != nil {
		return nil, fmt.Errorf("create the notifications table: %w", err)
	}
	if err := SeedDurableOutbox(ctx, setup, payments18, 0, clock.Start); err != nil {
		return nil, err
	}
	if err := changelog.Seeded(ctx, clock.Start); err != nil {
		return nil, err
	}
	prov := provider.New(provider.Rule{Outcome: provider.Paid})
	d := &day18{o: o, clk: clock.New(), run: &session18Run{renews: after, fenced: o.Fencing, serial: serialWriters(setup), prov: prov}}
	for _, w := range []**outboxWorker{&d.a, &d.b, &d.c} { // each worker has its own connections
		store, err := design.OpenExisting(ctx, db)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		*w = &outboxWorker{fenced: o.Fencing, store: store, prov: prov, lease: o.Lease}
	}
	d.a.id, d.b.id, d.c.id = "worker-a", "worker-b", "worker-c"
	if err := d.start(ctx, d.a, claimA18At, o.Handler); err != nil {
		return nil, err
	}
	if err := d.start(ctx, d.b, claimB18At, o.Hang); err != nil {
		return nil, err
	}
	if err := d.loop(ctx); err != nil {
		return nil, err
	}
	d.run.ended = d.clk.Now()
	return d.run, d.finish(ctx, setup, prov)
}

func (d *day18) say(at time.Time, key, text string) {
	d.run.lines = append(d.run.lines, eventLine(at, key, text))
}

// start has w claim one message at offset and start its handler, which
// takes handler.
func (d *day18) start(ctx context.Context, w *outboxWorker, offset, handler time.Duration) error {
	now := d.clk.AdvanceTo(clock.Start.Add(offset))
	from := len(d.run.lines)
	if _, err := d.take(ctx, w, now, handler); err != nil {
		return err
	}
	return changelog.Event(ctx, now, strings.Join(d.run.lines[from:], "\n"))
}

// take has w claim one message and ask the provider; its handler then runs
// for handler. It reports whether w claimed anything.
func (d *day18) take(ctx context.Context, w *outboxWorker, now time.Time, handler time.Duration) (bool, error) {
	claims, err := w.claim(ctx, now, 1)
	if err != nil || len(claims) == 0 {
		return false, err
	}
	c := claims[0]
	d.run.claims = append(d.run.claims, claim18{key: c.Key, worker: w.id, at: now, token: c.Token, attempt: c.Attempt})
	text := w.id + " " + w.claimText(c)
	for _, j := range d.jobs {
		if j.c.Key == c.Key {
			text += fmt.Sprintf(": %s's lease ended %s and its handler is still running", j.w.id, clock.Stamp(j.c.LeaseUntil))
		}
	}
	a, err := w.prov.CheckStatus(ctx, c.Key, now)
	if err != nil {
		return false, err
	}
	j := &job18{w: w, c: c, a: a, claimed: now, ends: now.Add(handler), renewing: d.run.renews}
	d.jobs = append(d.jobs, j)
	d.say(now, c.Key, fmt.Sprintf("%s → status check → %s → its handler takes %s", text, answerText(a), durationText(handler)))
	return true, nil
}

// loop runs the next act until nothing is in flight and worker-c has
// nothing left to claim or wait for. Each act is a step of the change log.
func (d *day18) loop(ctx context.Context) error {
	for step := 0; ; step++ {
		if step > 100000 {
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

type act18 func(ctx context.Context, now time.Time) error

// next is the earliest act: a renewal due, a handler returning, worker-c's
// poll; on a tie, in that order.
func (d *day18) next(ctx context.Context) (time.Time, act18, error) {
	var at time.Time
	var act act18
	consider := func(t time.Time, a act18) {
		if act == nil || t.Before(at) {
			at, act = t, a
		}
	}
	for _, j := range d.jobs {
		if due := j.c.LeaseUntil.Add(-d.o.margin()); j.renewing && due.Before(j.ends) {
			consider(due, func(ctx context.Context, now time.Time) error { return d.renew(ctx, j, now) })
		} else {
			consider(j.ends, func(ctx context.Context, now time.Time) error { return d.complete(ctx, j, now) })
		}
	}
	t, ok, err := d.rivalAt(ctx)
	if err == nil && ok {
		consider(t, d.poll)
	}
	return at, act, err
}

// rivalAt is when worker-c polls next: at rival18At first, at once after it
// finished a message, else just past the next lease end; with --rival=false
// once, when every handler has returned.
func (d *day18) rivalAt(ctx context.Context) (time.Time, bool, error) {
	now := d.clk.Now()
	busy := false
	for _, j := range d.jobs {
		busy = busy || j.w == d.c
	}
	switch {
	case busy:
		return time.Time{}, false, nil
	case !d.o.Rival:
		return now, len(d.jobs) == 0 && !d.polled, nil
	case !d.polled:
		return latest(now, clock.Start.Add(rival18At)), true, nil
	case d.pollNow:
		return now, true, nil
	}
	end, ok, err := d.c.store.NextWakeup(ctx, now)
	return end.Add(claim.WakeupSlack), ok, err
}

// poll has worker-c claim one message; finding none, it waits.
func (d *day18) poll(ctx context.Context, now time.Time) error {
	d.polled, d.pollNow = true, false
	took, err := d.take(ctx, d.c, now, quickHandler)
	if err != nil || took {
		return err
	}
	end, waiting, err := d.c.store.NextWakeup(ctx, now)
	switch {
	case err != nil:
		return err
	case waiting:
		d.say(now, "", fmt.Sprintf("worker-c polls: nothing claimable; it polls again just past the next lease end (now %s)", clock.Stamp(end)))
	default:
		d.say(now, "", "worker-c polls: nothing left to claim or wait for")
	}
	return nil
}

// renew extends j's lease by one renewal, never past the cap from its
// claim; at the cap it stops renewing and lets the lease run out.
func (d *day18) renew(ctx context.Context, j *job18, now time.Time) error {
	until := earliest(now.Add(d.o.Lease), j.claimed.Add(d.o.RenewCap))
	if !until.After(j.c.LeaseUntil) {
		j.renewing = false
		d.run.capped = append(d.run.capped, capStop{key: j.c.Key, worker: j.w.id, at: now, leaseEnd: j.c.LeaseUntil})
		d.say(now, j.c.Key, fmt.Sprintf("%s's handler still runs, but its claim reached the cap (--renew-cap %s from %s): no renewal; the lease ends %s",
			j.w.id, durationText(d.o.RenewCap), clock.Stamp(j.claimed), clock.Stamp(j.c.LeaseUntil)))
		return nil
	}
	before, err := d.row(ctx, j.c.MessageID)
	if err != nil {
		return err
	}
	c, err := j.w.store.Renew(ctx, j.c, now, until)
	if errors.Is(err, outbox.ErrNotOwner) {
		j.renewing = false
		d.say(now, j.c.Key, fmt.Sprintf("%s's renewal is REFUSED: the row no longer carries its claim (token %d)", j.w.id, j.c.Token))
		return nil
	}
	if err != nil {
		return err
	}
	after, err := d.row(ctx, j.c.MessageID)
	if err != nil {
		return err
	}
	d.run.renewals = append(d.run.renewals, renewal18{key: c.Key, worker: j.w.id, token: c.Token, at: now, before: before, after: after})
	j.c = c
	d.say(now, c.Key, fmt.Sprintf("%s renews its lease %s before it ends (owner and token checked): until %s",
		j.w.id, durationText(before.LockedUntil.Sub(now)), clock.Stamp(until)))
	return nil
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
