package wassal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// stop is TERM reaching worker-a. BEFORE: it exits at once and its
// handlers die with it. AFTER: it claims nothing more and drains.
func (d *shutdown18) stop(ctx context.Context, now time.Time) error {
	d.stopped, d.run.stop = true, now
	rows, err := d.rows(ctx)
	if err != nil {
		return err
	}
	d.run.atStop = rows
	running := d.held(d.a)
	if !d.run.drains {
		d.say(now, "", fmt.Sprintf("STOP (TERM): worker-a exits at once, nobody handles TERM; %s die with it; "+
			"held by it: %s", report.Plural(running, "running handler"), keysText(heldKeys(rows, d.a.id))))
		return d.leaveA(ctx, now, false)
	}
	d.run.deadline, d.run.kill = now.Add(d.o.Drain), now.Add(shutdownGrace)
	d.say(now, "", fmt.Sprintf("STOP (TERM): worker-a claims nothing more and drains %s; its deadline %s, "+
		"the supervisor's KILL at %s", report.Plural(running, "running handler"), clock.Stamp(d.run.deadline), clock.Stamp(d.run.kill)))
	return d.exitIfDrained(ctx, now)
}

// exitIfDrained has a draining worker-a exit once no handler of its runs.
func (d *shutdown18) exitIfDrained(ctx context.Context, now time.Time) error {
	if !d.stopped || d.gone || d.held(d.a) > 0 {
		return nil
	}
	d.say(now, "", "worker-a exits: nothing left to drain")
	return d.leaveA(ctx, now, false)
}

// deadline is the end of the drain: worker-a cancels its running handlers;
// each that returns has its message released, one that ignores the cancel
// keeps its message (its handler may still act on it).
func (d *shutdown18) deadline(ctx context.Context, now time.Time) error {
	d.cancelled = true
	d.say(now, "", fmt.Sprintf("drain deadline (%s after the stop): worker-a cancels its %s",
		durationText(d.o.Drain), report.Plural(d.held(d.a), "running handler")))
	for _, j := range slices.Clone(d.jobs) {
		if j.w != d.a {
			continue
		}
		if keyIndex(j.c.Key) == shutdownHangOf {
			d.run.ignored = append(d.run.ignored, j.c.Key)
			d.say(now, j.c.Key, "worker-a's handler ignores the cancel: the message stays worker-a's "+
				"(it cannot give back what its handler may still act on)")
			continue
		}
		if err := d.release(ctx, j, now); err != nil {
			return err
		}
	}
	rows, err := d.rows(ctx)
	if err != nil {
		return err
	}
	d.run.atDeadline = rows
	return d.exitIfDrained(ctx, now)
}

// release gives j's message back: uncounted (outbox.Store.Release), or
// with --count-release as a retry that keeps the attempt.
func (d *shutdown18) release(ctx context.Context, j *job18, now time.Time) error {
	d.jobs = slices.DeleteFunc(d.jobs, func(x *job18) bool { return x == j })
	before, err := d.row(ctx, j.c.MessageID)
	if err != nil {
		return err
	}
	if d.run.countRelease {
		err = d.a.store.Retry(ctx, j.c, time.Time{}, "released at shutdown")
	} else {
		err = d.a.store.Release(ctx, j.c)
	}
	if errors.Is(err, outbox.ErrNotOwner) {
		d.say(now, j.c.Key, fmt.Sprintf("worker-a's handler returns on the cancel; its release is REFUSED: "+
			"the row no longer carries its claim (token %d)", j.c.Token))
		return nil
	}
	if err != nil {
		return err
	}
	after, err := d.row(ctx, j.c.MessageID)
	if err != nil {
		return err
	}
	d.run.releases = append(d.run.releases, release18{key: j.c.Key, at: now, before: before, after: after})
	how := "not counted"
	if d.run.countRelease {
		how = "counted (--count-release)"
	}
	d.say(now, j.c.Key, fmt.Sprintf("worker-a's handler returns on the cancel after %s → released: %s, "+
		"AttemptCount %d → %d (%s), no owner", durationText(now.Sub(j.claimed)), after.Status, before.AttemptCount,
		after.AttemptCount, how))
	return nil
}

// kill is the supervisor's KILL at the end of its grace: worker-a dies
// with whatever it still holds.
func (d *shutdown18) kill(ctx context.Context, now time.Time) error {
	rows, err := d.rows(ctx)
	if err != nil {
		return err
	}
	var held []string
	for _, m := range rows {
		if m.Status == outbox.Processing && m.LockedBy == d.a.id {
			held = append(held, fmt.Sprintf("%s (lease until %s)", m.Key, clock.Stamp(m.LockedUntil)))
		}
	}
	d.say(now, "", fmt.Sprintf("KILL (%s after the stop): worker-a dies holding %s", durationText(shutdownGrace), keysText(held)))
	return d.leaveA(ctx, now, true)
}

// complete is a handler returning: its worker records the answer, unless
// the row no longer carries its claim.
func (d *shutdown18) complete(ctx context.Context, j *job18, now time.Time) error {
	d.jobs = slices.DeleteFunc(d.jobs, func(x *job18) bool { return x == j })
	row, err := d.row(ctx, j.c.MessageID)
	if err != nil {
		return err
	}
	refused, err := j.w.finish(ctx, j.c, j.a, now)
	if err != nil {
		return err
	}
	head := fmt.Sprintf("%s's handler returns after %s", j.w.id, durationText(now.Sub(j.claimed)))
	switch {
	case refused:
		d.say(now, j.c.Key, fmt.Sprintf("%s — but the row is %s with token %d, not its %d → REFUSED",
			head, row.Status, row.ClaimToken, j.c.Token))
	case j.w == d.a && d.stopped:
		d.say(now, j.c.Key, head+" → payment Paid, notified → Processed (draining: no new claim)")
	default:
		d.say(now, j.c.Key, head+" → payment Paid, notified → Processed")
	}
	if j.w == d.b {
		d.bPollNow = true
	} else {
		d.aPollNow = true
	}
	return d.exitIfDrained(ctx, now)
}

// row reads one outbox row as it stands.
func (d *shutdown18) row(ctx context.Context, id int64) (outbox.Message, error) {
	rows, err := d.rows(ctx)
	if err != nil {
		return outbox.Message{}, err
	}
	for _, m := range rows {
		if m.ID == id {
			return m, nil
		}
	}
	return outbox.Message{}, fmt.Errorf("outbox message %d is gone", id)
}

// finish reads the final state: ledgers, notifications, schema.
func (d *shutdown18) finish(ctx context.Context, store *outbox.Store) error {
	run := d.run
	var err error
	if run.ledger, err = ReadLedger(ctx, store, run.prov); err != nil {
		return err
	}
	if run.tables, err = store.Tables(ctx); err != nil {
		return err
	}
	if run.notifications, err = readNotifications(ctx, store); err != nil {
		return err
	}
	processed := 0
	for _, m := range run.ledger.Messages {
		if m.Status == outbox.Processed {
			processed++
		}
	}
	d.say(run.ended, "", fmt.Sprintf("run ends: %s Processed, %s",
		report.Plural(processed, "message"), report.Plural(len(run.notifications), "notification")))
	return nil
}
