package retry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

// consumerState is what a consumer is doing.
type consumerState int

const (
	idle     consumerState = iota // polling the outbox
	sending                       // waiting for the gateway's answer
	sleeping                      // waiting out a backoff while still holding the message (held design only)
)

// consumer is one consumer process, stepped on the scenario clock.
type consumer struct {
	id      string
	state   consumerState
	until   time.Time    // when the current send or sleep ends
	claim   outbox.Claim // the message it holds
	first   time.Time    // the held message's first delivery, from the audit log
	attempt int          // the attempt the current send is (AttemptCount plus retries made while holding)
	pending send         // the send in flight
	hold    int          // index of its current hold in the run's holds
}

// hold is one consumer holding one message, as the consumer sees it, for the
// timeline's "also holds it"; the checks read the holds from the audit log
// and the gateway's ledger instead (visibility_truth.go).
type hold struct {
	consumer, key string
	from          time.Time
	open          bool
}

// event is one timeline line.
type event struct {
	at       time.Time
	consumer string
	text     string
}

// pairRun is one design of the visibility pair driven to its end.
type pairRun struct {
	held    bool
	events  []event
	holds   []hold
	gw      *gateway
	msgs    []outbox.Message
	audit   []outbox.AuditEntry
	tables  []outbox.Table
	refused int64 // owner-checked updates the database matched no row for
	ended   time.Time
	capped  bool                   // the demo cap stopped a run that would not settle
	exits   map[int64]backoff.Exit // the budget that dead-lettered each message, from the audit log
	read    pairMetrics            // what the run left, read back (see metrics)
}

// sim drives consumers against one outbox until nothing is left to do.
type sim struct {
	o     *visibilityOptions
	store *outbox.Store
	clock *clock.ScenarioClock
	run   *pairRun
	first map[int64]time.Time // message id → its first delivery, once read from the audit log
	// nothingAt is the instant a claim last found nothing. Nothing a consumer
	// does can make a message claimable at the same instant (a retry is due
	// at least a millisecond later), so the others need not ask again.
	nothingAt time.Time
}

func (s *sim) log(at time.Time, who, format string, args ...any) {
	s.run.events = append(s.run.events, event{at: at, consumer: who, text: fmt.Sprintf(format, args...)})
}

// horizon is the demo cap: how long a run may go on in scenario time before
// it is stopped. A lease shorter than a send makes the claims go round forever.
func (o *visibilityOptions) horizon() time.Duration {
	return max(10*time.Minute, 3*o.TimeBudget)
}

// drive steps every due consumer at the current instant, in order; when none
// is due it moves the clock to the next send or sleep end, backoff end or
// lease expiry (plus the worker's 1 ms slack), and stops when there is none.
func (s *sim) drive(ctx context.Context, consumers []*consumer) error {
	horizon := clock.Start.Add(s.o.horizon())
	// Each instant visited either moves a consumer (a claim, an answer, a
	// wake-up: at most three per send) or moves the clock to one.
	limit := 8*s.o.maxSends() + 100
	recorded := 0 // s.run.events already in the change log
	for steps := int64(0); steps < limit; steps++ {
		now := s.clock.Now()
		if now.After(horizon) {
			s.run.capped, s.run.ended = true, now
			s.log(now, "—", "demo cap: the run has not settled %s after it started; it is stopped here", clockText(s.o.horizon()))
			return nil
		}
		acted := false
		for _, c := range consumers {
			if c.state != idle && c.until.After(now) {
				continue
			}
			did, err := s.step(ctx, c, now)
			if err == nil {
				err = s.record(ctx, now, &recorded)
			}
			if err != nil {
				return fmt.Errorf("%s at %s: %w", c.id, clock.Stamp(now), err)
			}
			acted = acted || did
		}
		if acted {
			continue
		}
		var next time.Time
		for _, c := range consumers {
			if c.state != idle && (next.IsZero() || c.until.Before(next)) {
				next = c.until
			}
		}
		wake, ok, err := s.store.NextWakeup(ctx, now)
		if err != nil {
			return err
		}
		if ok && (next.IsZero() || wake.Add(claim.WakeupSlack).Before(next)) {
			next = wake.Add(claim.WakeupSlack)
		}
		if next.IsZero() {
			s.run.ended = now
			return nil
		}
		s.clock.AdvanceTo(next)
	}
	return errors.New("the consumers did not settle")
}

// step lets c act at now and reports whether it did anything.
func (s *sim) step(ctx context.Context, c *consumer, now time.Time) (bool, error) {
	switch c.state {
	case sending:
		return true, s.finish(ctx, c, now)
	case sleeping:
		c.attempt++
		s.startSend(c, now, "wakes up holding it", true)
		return true, nil
	}
	return s.claim(ctx, c, now)
}

// claim takes the oldest deliverable message, records the delivery in the
// audit log in the same transaction and reads the message's first delivery.
func (s *sim) claim(ctx context.Context, c *consumer, now time.Time) (bool, error) {
	if now.Equal(s.nothingAt) {
		return false, nil
	}
	var got bool
	err := s.store.InTx(ctx, func(tx *sql.Tx) error {
		claims, err := s.store.ClaimTx(ctx, tx, c.id, now, s.o.Visibility, 1)
		if err != nil || len(claims) == 0 {
			return err
		}
		c.claim, got = claims[0], true
		if err := outbox.AuditTx(ctx, tx, now, c.id, actionDelivered, c.claim.MessageID,
			fmt.Sprintf("%s delivery %d", c.claim.Key, c.claim.Attempt)); err != nil {
			return err
		}
		if first, ok := s.first[c.claim.MessageID]; ok {
			c.first = first // the log only grows, later: its first delivery stays the first
			return nil
		}
		var first string
		q, args := s.store.Dialect().Bind(`SELECT MIN(AtUtc) FROM AuditLog WHERE Action = ? AND MessageId = ?`,
			actionDelivered, c.claim.MessageID)
		if err := tx.QueryRowContext(ctx, q, args...).Scan(&first); err != nil {
			return fmt.Errorf("read first delivery of %s: %w", c.claim.Key, err)
		}
		c.first = mustParseISO(first)
		s.first[c.claim.MessageID] = c.first
		return nil
	})
	if err != nil {
		return false, err
	}
	if !got {
		s.nothingAt = now
		return false, nil
	}
	c.attempt = c.claim.Attempt
	c.hold = len(s.run.holds)
	s.run.holds = append(s.run.holds, hold{consumer: c.id, key: c.claim.Key, from: now, open: true})
	s.startSend(c, now, fmt.Sprintf("claims it (delivery %d; hidden until %s)", c.claim.Attempt, clock.Stamp(c.claim.LeaseUntil)), false)
	return true, nil
}

// startSend calls the gateway for the held message.
func (s *sim) startSend(c *consumer, now time.Time, why string, withAttempt bool) {
	c.pending = s.run.gw.send(c.id, c.claim.Key, c.attempt, now)
	c.state, c.until = sending, c.pending.done
	also := ""
	if others := s.holders(c.claim.Key, c.id, now); len(others) > 0 {
		verb := " holds it too"
		if len(others) > 1 {
			verb = " hold it too"
		}
		also = " — " + strings.Join(others, ", ") + verb
	}
	attempt := ""
	if withAttempt { // a claim's attempt is its delivery; a held resend's is not
		attempt = fmt.Sprintf(" (attempt %d)", c.attempt)
	}
	s.log(now, c.id, "%s: %s, send #%d%s%s", c.claim.Key, why, c.pending.seq, attempt, also)
}

// holders names the other consumers holding key at t.
func (s *sim) holders(key, except string, t time.Time) []string {
	var out []string
	for _, h := range s.run.holds {
		if h.key == key && h.consumer != except && h.open && !h.from.After(t) {
			out = append(out, h.consumer)
		}
	}
	return out
}

// finish handles the gateway's answer to c's send: complete on success; on
// failure dead-letter when a budget is out, otherwise back off, holding the
// message (held design) or putting it back on the queue.
func (s *sim) finish(ctx context.Context, c *consumer, now time.Time) error {
	snd, key := c.pending, c.claim.Key
	c.state = idle
	if snd.ok {
		err := s.store.InTx(ctx, func(tx *sql.Tx) error { return s.store.CompleteTx(ctx, tx, c.claim, now) })
		if err == nil {
			s.log(now, c.id, "%s: send #%d went through ✓ → Processed", key, snd.seq)
		}
		return s.release(c, now, err, fmt.Sprintf("%s: send #%d went out ✓", key, snd.seq))
	}
	delay := s.o.backoff().Delay(c.attempt)
	elapsed := now.Sub(c.first)
	if exit := s.o.budget().After(c.attempt, elapsed, delay); exit != backoff.NoExit {
		reason := exitReason(exit, s.o.budget(), c.attempt, elapsed+delay)
		err := s.store.InTx(ctx, func(tx *sql.Tx) error {
			if err := s.store.DeadLetterTx(ctx, tx, c.claim, now, snd.err+"; "+reason); err != nil {
				return err
			}
			return outbox.AuditTx(ctx, tx, now, c.id, exitActions[exit], c.claim.MessageID, reason)
		})
		if err == nil {
			s.log(now, c.id, "%s: send #%d %s → DEAD-LETTERED: %s", key, snd.seq, snd.short, reason)
		}
		return s.release(c, now, err, fmt.Sprintf("%s: send #%d %s", key, snd.seq, snd.short))
	}
	next := now.Add(delay)
	if s.run.held {
		c.state, c.until = sleeping, next
		past := ""
		if next.After(c.claim.LeaseUntil) {
			past = fmt.Sprintf(": %s past its lease", secondsText(next.Sub(c.claim.LeaseUntil)))
		} else {
			past = ", to " + clock.Stamp(next)
		}
		s.log(now, c.id, "%s: send #%d %s → sleeps %s HOLDING it%s", key, snd.seq, snd.short, clockText(delay), past)
		return nil
	}
	err := s.store.Retry(ctx, c.claim, next, snd.err)
	if err == nil {
		over := ""
		if delay > s.o.Visibility { // the rule binds a held wait, not this one
			over = "; over the visibility timeout, but no lease is open"
		}
		s.log(now, c.id, "%s: send #%d %s → Pending, due again in %s (%s)%s",
			key, snd.seq, snd.short, clockText(delay), clock.Stamp(next), over)
	}
	return s.release(c, now, err, fmt.Sprintf("%s: send #%d %s", key, snd.seq, snd.short))
}

// release ends c's hold. A transition refused because another consumer
// claimed the message meanwhile is not an error: it is the finding.
func (s *sim) release(c *consumer, now time.Time, err error, what string) error {
	s.run.holds[c.hold].open = false
	if errors.Is(err, outbox.ErrNotOwner) {
		s.log(now, c.id, "%s → REFUSED: another consumer had claimed it", what)
		return nil
	}
	return err
}

// exitReason says which budget ran out and by how much.
func exitReason(exit backoff.Exit, b backoff.Budget, attempt int, nextAt time.Duration) string {
	if exit == backoff.RetryBudgetOut {
		return fmt.Sprintf("retry budget out (attempt %d of %d)", attempt, b.MaxAttempts)
	}
	return fmt.Sprintf("time budget out (the next attempt would start %s after the first delivery; budget %s)",
		secondsText(nextAt), clockText(b.MaxElapsed))
}
