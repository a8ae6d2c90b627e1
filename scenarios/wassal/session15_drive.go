package wassal

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// day15 drives one design through the scenario's acts on one database.
type day15 struct {
	o       *session15Options
	run     *session15Run
	clk     *clock.ScenarioClock
	a, b    *outboxWorker
	holders map[string][]outbox.Claim // claims not finished yet, per key
	stalled *stalledWork              // worker-a's answer, not recorded yet
	logged  int                       // the timeline's lines already in the change log
}

// stalledWork is worker-a's claim and answer while it stalls.
type stalledWork struct {
	c       outbox.Claim
	a       provider.Answer
	returns time.Time
}

// design is the store a Day 15 run opens: the BEFORE is Day 14's design
// (no lease, no claim token), the AFTER Day 15's.
func (o *session15Options) design(naive bool) outbox.Design {
	if naive {
		return Day(14)
	}
	return Day(15)
}

// dayOf is the -day a worker-c child opens its store with.
func dayOf(naive bool) string {
	if naive {
		return "14"
	}
	return "15"
}

func (o *session15Options) drive(ctx context.Context, db dialect.Database, naive bool) (*session15Run, error) {
	design := o.design(naive)
	setup, err := design.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer setup.Close()
	if err := setup.CreateTable(ctx, notificationsSchema); err != nil {
		return nil, fmt.Errorf("create the notifications table: %w", err)
	}
	if err := SeedDurableOutbox(ctx, setup, o.Payments, 0, clock.Start); err != nil {
		return nil, err
	}
	if err := changelog.Seeded(ctx, clock.Start); err != nil {
		return nil, err
	}
	prov := provider.New(provider.Rule{Outcome: provider.Paid})
	if o.DeclinedKey != "" {
		prov.Script(o.DeclinedKey, provider.Rule{Outcome: provider.Declined})
	}
	srv, err := provider.Serve(prov, nil)
	if err != nil {
		return nil, err
	}
	defer srv.Close()

	d := &day15{o: o, clk: clock.New(), holders: map[string][]outbox.Claim{},
		run: &session15Run{naive: naive, fenced: !naive && o.Fencing, serial: serialWriters(setup), completions: map[string]int{},
			claimedBy: map[string][]string{}, prov: prov}}
	for _, w := range []**outboxWorker{&d.a, &d.b} { // each worker has its own connections, as a process would
		store, err := design.OpenExisting(ctx, db)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		*w = &outboxWorker{naive: naive, fenced: d.run.fenced, store: store, prov: prov, lease: o.Lease}
	}
	d.a.id, d.b.id = "worker-a", "worker-b"

	if err := d.crash(ctx, db, srv.URL); err != nil {
		return nil, err
	}
	for _, act := range []func(context.Context) error{d.race, d.stall, d.drain} {
		if err := act(ctx); err != nil {
			return nil, err
		}
	}
	d.run.ended = d.clk.Now()
	return d.run, d.finish(ctx, setup)
}

func (d *day15) say(at time.Time, key, text string) {
	d.run.lines = append(d.run.lines, eventLine(at, key, text))
}

// flush records one event in the change log: the lines said since the
// last, with the rows changed since. It follows what each act wrote (a
// claim, a completion, a refusal, the clock's move), so that an event's
// lines tell of its changes.
func (d *day15) flush(ctx context.Context) error {
	if d.logged == len(d.run.lines) {
		return nil
	}
	text := strings.Join(d.run.lines[d.logged:], "\n")
	d.logged = len(d.run.lines)
	return changelog.Event(ctx, d.clk.Now(), text)
}

// crash runs worker-c in a child process: it claims one message and is killed.
func (d *day15) crash(ctx context.Context, db dialect.Database, url string) error {
	now := d.clk.AdvanceTo(clock.Start.Add(crashActAt))
	logged, err := changelog.ForChild(ctx) // worker-c writes its rows itself: it records its own events
	if err != nil {
		return err
	}
	exit, err := child.Run(ctx, session15Child, append([]string{"-db", db.String(), "-day", dayOf(d.a.naive), "-provider", url,
		"-naive=" + strconv.FormatBool(d.a.naive), "-fenced=" + strconv.FormatBool(d.run.fenced), "-lease", d.o.Lease.String(),
		"-at", clock.ISO(now), "-crash-point", d.o.CrashPoint}, logged.Args()...)...)
	if err != nil {
		return fmt.Errorf("run worker-c: %w", err)
	}
	if err := logged.Merge(ctx, now); err != nil {
		return err
	}
	d.run.lines = append(d.run.lines, outputLines(exit.Output)...)
	d.logged = len(d.run.lines)
	switch {
	case d.o.CrashPoint == noCrash15 && exit.Code != 0:
		return fmt.Errorf("worker-c exited with code %d", exit.Code)
	case d.o.CrashPoint != noCrash15 && !exit.Died():
		return fmt.Errorf("worker-c should have been killed, but it exited with code %d", exit.Code)
	case d.o.CrashPoint == noCrash15: // worker-c finished its message and exited
		ns, err := readNotifications(ctx, d.a.store)
		for _, n := range ns {
			d.run.claimedBy[n.key] = append(d.run.claimedBy[n.key], n.by)
			d.run.completions[n.key]++
		}
		return err
	}
	msgs, err := d.a.store.Messages(ctx)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Status == outbox.Processing && m.LockedBy == "worker-c" {
			d.run.crashed, d.run.crashedRow = m.Key, m
			d.run.claimedBy[m.Key] = append(d.run.claimedBy[m.Key], m.LockedBy)
			d.holders[m.Key] = append(d.holders[m.Key], outbox.Claim{MessageID: m.ID, Key: m.Key, Worker: m.LockedBy,
				Token: m.ClaimToken, LeaseUntil: m.LockedUntil})
		}
	}
	return nil
}

// race has worker-a and worker-b poll at the same moment.
func (d *day15) race(ctx context.Context) error {
	now := d.clk.AdvanceTo(clock.Start.Add(raceActAt))
	var ca, cb []outbox.Claim
	var err error
	switch {
	case d.a.naive:
		ca, cb, err = d.naiveRace(ctx, now)
	case d.o.Overlap:
		ca, cb, err = d.overlappingClaims(ctx, now)
	default:
		d.say(now, "", fmt.Sprintf("worker-a and worker-b poll one after the other (--overlap=false), %d messages each at most", d.o.Batch))
		if ca, err = d.a.claim(ctx, now, d.o.Batch); err == nil {
			cb, err = d.b.claim(ctx, now, d.o.Batch)
		}
	}
	if err != nil {
		return err
	}
	for _, pass := range []struct {
		w      *outboxWorker
		claims []outbox.Claim
	}{{d.a, ca}, {d.b, cb}} {
		d.took(pass.w, pass.claims, now)
	}
	if err := d.flush(ctx); err != nil {
		return err
	}
	for _, pass := range []struct {
		w      *outboxWorker
		claims []outbox.Claim
	}{{d.a, ca}, {d.b, cb}} {
		for _, c := range pass.claims {
			if err := d.process(ctx, pass.w, c, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// naiveRace is the select-then-update interleaving: both workers read before
// either writes (unless --overlap=false), then both write.
func (d *day15) naiveRace(ctx context.Context, now time.Time) (ca, cb []outbox.Claim, err error) {
	idsA, err := d.a.read(ctx, d.o.Batch)
	if err != nil {
		return nil, nil, err
	}
	if !d.o.Overlap {
		if ca, err = d.a.mark(ctx, idsA); err != nil {
			return nil, nil, err
		}
	}
	idsB, err := d.b.read(ctx, d.o.Batch)
	if err != nil {
		return nil, nil, err
	}
	if d.o.Overlap {
		if ca, err = d.a.mark(ctx, idsA); err != nil {
			return nil, nil, err
		}
		d.say(now, "", fmt.Sprintf("worker-a and worker-b poll at the same moment: worker-a reads Pending %s, worker-b reads Pending %s — neither has written yet (plain SELECT, nothing locked)",
			d.keysOf(ctx, idsA), d.keysOf(ctx, idsB)))
	} else {
		d.say(now, "", fmt.Sprintf("worker-a reads Pending %s and marks them; worker-b polls after that (--overlap=false) and reads Pending %s",
			d.keysOf(ctx, idsA), d.keysOf(ctx, idsB)))
	}
	cb, err = d.b.mark(ctx, idsB)
	return ca, cb, err
}

// overlappingClaims starts worker-b's claim while worker-a's claim
// transaction is still open, in a second goroutine on its own connections.
// On SQLite BEGIN IMMEDIATE lets one claim run at a time, so worker-b's claim
// runs after worker-a's commits; on PostgreSQL worker-b's FOR UPDATE SKIP
// LOCKED passes over the rows worker-a's open transaction has locked. Either
// way worker-b takes the next messages, whatever the goroutines' timing.
func (d *day15) overlappingClaims(ctx context.Context, now time.Time) (ca, cb []outbox.Claim, err error) {
	var errB error
	done := make(chan struct{})
	err = d.a.store.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		if ca, err = d.a.store.ClaimTx(ctx, tx, d.a.id, now, d.a.lease, d.o.Batch); err != nil {
			return err
		}
		go func() {
			defer close(done)
			cb, errB = d.b.store.Claim(ctx, d.b.id, now, d.b.lease, d.o.Batch)
		}()
		return nil
	})
	<-done
	if err == nil {
		err = errB
	}
	d.say(now, "", fmt.Sprintf("worker-a and worker-b poll at the same moment: worker-b's claim starts while worker-a's claim transaction is open: worker-a takes %s, worker-b takes %s",
		keysText(claimKeys(ca)), keysText(claimKeys(cb))))
	d.say(now, "", databaseLine(d.run.serial,
		"SQLite: BEGIN IMMEDIATE runs the two claims one after the other",
		"PostgreSQL: worker-b's claim reads with FOR UPDATE SKIP LOCKED and passes over the rows worker-a's open transaction has locked; neither waits"))
	return ca, cb, err
}

// took records the claims a worker just made: a message another worker still
// validly held was taken at once; one whose holder's lease had expired was taken over.
func (d *day15) took(w *outboxWorker, claims []outbox.Claim, now time.Time) {
	for _, c := range claims {
		text := w.claimText(c)
		for _, h := range d.holders[c.Key] {
			switch {
			case h.LeaseUntil.IsZero() || !h.LeaseUntil.Before(now):
				d.run.takenAtOnce = appendOnce(d.run.takenAtOnce, c.Key)
				text += ", " + h.Worker + " still holds it"
			default:
				d.run.takeovers = append(d.run.takeovers, takeover{key: c.Key, from: h.Worker, to: w.id,
					expired: h.LeaseUntil, at: now, token: c.Token})
				text += fmt.Sprintf(": %s's lease ended %s, this is a takeover", h.Worker, clock.Stamp(h.LeaseUntil))
			}
		}
		d.holders[c.Key] = append(d.holders[c.Key], c)
		d.run.claimedBy[c.Key] = append(d.run.claimedBy[c.Key], w.id)
		d.say(now, c.Key, w.id+" "+text)
	}
}

// process asks the provider about a claimed message and records the answer at once.
func (d *day15) process(ctx context.Context, w *outboxWorker, c outbox.Claim, now time.Time) error {
	a, err := w.prov.CheckStatus(ctx, c.Key, now)
	if err != nil {
		return err
	}
	return d.record(ctx, w, c, a, now, w.id+" checks → "+answerText(a))
}

// record finishes a claim and says what happened. A worker the row no
// longer names (another worker claimed it since) is late: fenced, it is
// refused; otherwise its completion commits anyway.
func (d *day15) record(ctx context.Context, w *outboxWorker, c outbox.Claim, a provider.Answer, now time.Time, head string) error {
	again := d.run.completions[c.Key] > 0
	owner, err := d.owner(ctx, c.MessageID)
	if err != nil {
		return err
	}
	late := owner.worker != w.id || (!w.naive && owner.token != c.Token)
	refused, err := w.finish(ctx, c, a, now)
	if err != nil {
		return err
	}
	d.release(w.id, c.Key)
	x := refusal{key: c.Key, worker: w.id, token: c.Token, ownerToken: owner.token, at: now}
	if late {
		d.run.lateAttempts = append(d.run.lateAttempts, x)
	}
	if refused {
		d.say(now, c.Key, fmt.Sprintf("%s → REFUSED: the row now carries token %d, not %s's %d; the transaction rolls back (no payment update, no notification)",
			head, owner.token, w.id, c.Token))
		return d.flush(ctx)
	}
	d.run.completions[c.Key]++
	status, _ := resolution(a)
	effect := fmt.Sprintf("payment %s, notified → Processed", status)
	if again {
		effect = "already resolved, notified AGAIN → Processed again"
	}
	d.say(now, c.Key, head+" → "+effect)
	return d.flush(ctx)
}
