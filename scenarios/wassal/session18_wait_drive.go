package wassal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// waitRun is one design of the waiting pair driven to its end.
type waitRun struct {
	after, woken  bool // the AFTER design; the producer wakes the workers
	serial        bool // SQLite: one writer at a time, no NOTIFY
	lines         []string
	claims        []claim18
	wakes         int      // wakes delivered to an idle worker
	polls         []poll18 // every claim statement, as the engine ran it
	ended         time.Time
	ledger        Ledger
	notifications []notification
	tables        []outbox.Table
	prov          *provider.Provider
}

// poll18 is one claim statement the engine ran for a worker: when, and the
// rows it returned.
type poll18 struct {
	worker string
	at     time.Time
	found  int64
}

// idler is one worker waiting for work: its own connections, the trace of
// its claims, its polling schedule.
type idler struct {
	w        *outboxWorker
	trace    *claim.Trace
	offset   time.Duration // its first poll
	nextTick time.Time
	pollNow  bool   // it polls at once: woken, or it finished a message
	reason   string // why it polls at once: "woken", or after its last message
}

// wait18 drives one design: an event loop on the scenario clock over the
// producer's inserts, the workers' polls and their handlers.
type wait18 struct {
	o        *waitOptions
	run      *waitRun
	clk      *clock.ScenarioClock
	producer *outbox.Store
	idlers   []*idler
	jobs     []*job18
	wake     waker // nil: nobody is woken
	inserted int
}

func (o *waitOptions) drive(ctx context.Context, db dialect.Database, after bool) (*waitRun, error) {
	design := Day(16)
	setup, err := design.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer setup.Close()
	if err := setup.CreateTable(ctx, notificationsSchema); err != nil {
		return nil, fmt.Errorf("create the notifications table: %w", err)
	}
	if err := changelog.Seeded(ctx, clock.Start); err != nil {
		return nil, err
	}
	prov := provider.New(provider.Rule{Outcome: provider.Paid})
	d := &wait18{o: o, clk: clock.New(), producer: setup,
		run: &waitRun{after: after, woken: after && o.Notify, serial: serialWriters(setup), prov: prov}}
	interval := o.interval(after)
	for i, id := range []string{"worker-a", "worker-b"} {
		store, err := design.OpenExisting(ctx, db)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		off := time.Duration(i) * interval / 2
		d.idlers = append(d.idlers, &idler{w: &outboxWorker{id: id, fenced: true, store: store, prov: prov, lease: shutdownLease},
			trace: &claim.Trace{}, offset: off, nextTick: clock.Start.Add(off)})
	}
	if d.run.woken {
		if d.wake, err = newWaker(ctx, db, len(d.idlers)); err != nil {
			return nil, err
		}
		defer d.wake.close()
	}
	if err := d.loop(ctx); err != nil {
		return nil, err
	}
	d.run.ended = d.clk.Now()
	return d.run, d.finish(ctx)
}

func (d *wait18) say(at time.Time, key, text string) {
	d.run.lines = append(d.run.lines, eventLine(at, key, text))
}

// loop runs the next act until none is left. Each act that told something
// is a step of the change log (a poll that found nothing changed nothing).
func (d *wait18) loop(ctx context.Context) error {
	for step := 0; ; step++ {
		if step > 100000 {
			return fmt.Errorf("the workers did not settle after %d steps", step)
		}
		at, act := d.next()
		if act == nil {
			return nil
		}
		now := d.clk.AdvanceTo(at)
		from := len(d.run.lines)
		if err := act(ctx, now); err != nil {
			return err
		}
		if len(d.run.lines) == from {
			continue
		}
		if err := changelog.Event(ctx, now, strings.Join(d.run.lines[from:], "\n")); err != nil {
			return err
		}
	}
}

// next is the earliest act; on a tie, a handler returning, the producer's
// insert, a worker polling at once, a worker's scheduled poll.
func (d *wait18) next() (time.Time, act18) {
	var at time.Time
	var act act18
	rank := 0
	consider := func(t time.Time, r int, a act18) {
		if act == nil || t.Before(at) || (t.Equal(at) && r < rank) {
			at, act, rank = t, a, r
		}
	}
	for _, j := range d.jobs {
		consider(j.ends, 0, func(ctx context.Context, now time.Time) error { return d.complete(ctx, j, now) })
	}
	if d.inserted < d.o.Messages {
		consider(clock.Start.Add(waitArrivals[d.inserted]), 1, d.insert)
	}
	end := clock.Start.Add(waitWindow)
	for _, w := range d.idlers {
		switch {
		case d.busy(w):
		case w.pollNow:
			consider(d.clk.Now(), 2, func(ctx context.Context, now time.Time) error { return d.poll(ctx, w, now) })
		case !w.nextTick.After(end):
			consider(w.nextTick, 3, func(ctx context.Context, now time.Time) error { return d.poll(ctx, w, now) })
		}
	}
	return at, act
}

func (d *wait18) busy(w *idler) bool {
	return slices.ContainsFunc(d.jobs, func(j *job18) bool { return j.w == w.w })
}

// insert is the producer writing the next payment and its message in one
// transaction; in the woken design the wake goes with it.
func (d *wait18) insert(ctx context.Context, now time.Time) error {
	d.inserted++
	key, i := PaymentKey(d.inserted), d.inserted
	err := d.producer.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{
			Key: key, AmountCents: amountCents(i), Status: outbox.PendingConfirmation, CreatedAt: now,
		}); err != nil {
			return err
		}
		_, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: key, Type: ConfirmType, CreatedAt: now,
			Payload: fmt.Sprintf(`{"paymentKey":%q,"amountCents":%d}`, key, amountCents(i))})
		if err == nil && d.wake != nil {
			err = d.wake.notifyTx(ctx, tx, key)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("the producer's insert of %s: %w", key, err)
	}
	text := "the producer writes the payment and its message in one transaction"
	if d.wake == nil {
		d.say(now, key, text+" (no wake: the workers find it when they poll)")
		return nil
	}
	if err := d.wake.committed(ctx, key); err != nil {
		return err
	}
	var woken []string
	for _, w := range d.idlers {
		if !d.busy(w) {
			w.pollNow, w.reason = true, "woken"
			woken = append(woken, w.w.id)
			d.run.wakes++
		}
	}
	d.say(now, key, fmt.Sprintf("%s; its commit wakes the idle workers: %s", text, keysText(woken)))
	return nil
}

// poll is one claim of one message by w; then w's next scheduled poll is
// the first of its schedule after now.
func (d *wait18) poll(ctx context.Context, w *idler, now time.Time) error {
	reason := w.reason
	w.pollNow, w.reason = false, ""
	interval := d.o.interval(d.run.after)
	for !w.nextTick.After(now) {
		w.nextTick = w.nextTick.Add(interval)
	}
	traced := len(w.trace.Entries())
	claims, err := w.w.claim(claim.WithTrace(ctx, w.trace), now, 1)
	if err != nil {
		return err
	}
	for _, e := range w.trace.Entries()[traced:] {
		if e.Kind == "claim" { // the claim statement as the engine ran it, and the rows it returned
			d.run.polls = append(d.run.polls, poll18{worker: w.w.id, at: now, found: e.Rows})
		}
	}
	if len(claims) == 0 {
		if reason == "woken" {
			d.say(now, "", w.w.id+" is woken too and finds nothing: the other worker took it")
		}
		return nil
	}
	c := claims[0]
	d.run.claims = append(d.run.claims, claim18{key: c.Key, worker: w.w.id, at: now, token: c.Token, attempt: c.Attempt})
	a, err := w.w.prov.CheckStatus(ctx, c.Key, now)
	if err != nil {
		return err
	}
	d.jobs = append(d.jobs, &job18{w: w.w, c: c, a: a, claimed: now, ends: now.Add(quickHandler)})
	why := reason
	if why == "" {
		why = "at its scheduled poll"
	}
	inserted := clock.Start.Add(waitArrivals[keyIndex(c.Key)-1])
	d.say(now, c.Key, fmt.Sprintf("%s claims it, %s, %s after its insert → status check → %s → its handler takes %s",
		w.w.id, why, durationText(now.Sub(inserted)), answerText(a), durationText(quickHandler)))
	return nil
}

// complete is a handler returning: its worker records the answer and looks
// for more work at once.
func (d *wait18) complete(ctx context.Context, j *job18, now time.Time) error {
	d.jobs = slices.DeleteFunc(d.jobs, func(x *job18) bool { return x == j })
	refused, err := j.w.finish(ctx, j.c, j.a, now)
	if err != nil {
		return err
	}
	if refused {
		return errors.New("a completion was refused: no other worker could have taken " + j.c.Key)
	}
	status, _ := resolution(j.a)
	d.say(now, j.c.Key, fmt.Sprintf("%s's handler returns → payment %s, notified → Processed; it polls again at once", j.w.id, status))
	for _, w := range d.idlers {
		if w.w == j.w {
			w.pollNow, w.reason = true, "after its last message"
		}
	}
	return nil
}
