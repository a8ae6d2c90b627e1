package wassal

import (
	"fmt"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/worker"
)

// session16Metrics are the numbers a Day 16 run is judged by. The checks read
// them from what the run left behind: the outbox and payment rows, and the
// provider's ledger of every call it received.
type session16Metrics struct {
	naive, capped             bool      // the run's design, and whether the demo cap stopped it
	ended                     time.Time // scenario time at the end of the run
	healthy, healthyProcessed int
	poisonAttempts            []int // each poison row's AttemptCount
	poisonCalls               []int // status checks the provider received for each poison key
	poisonCeilings            int   // poison rows carrying a MaxAttempts ceiling
	poisonStatuses            []outbox.Status
	poisonPayments            []outbox.PaymentStatus
	poisonErrorsSet           bool
	poisonMoneyTaken          int             // provider calls for a poison key answered with a payment
	atCap                     []string        // poison keys the provider was asked about --retry-cap times
	backoffs                  []time.Duration // every backoff a poison retry waited, in order (timeline only)
	deadLettered              int
	calls, failedCalls        int
	pending, processing       int
	paid, failed              int
	dupPayments, dupMessages  int
	maxPayRows, maxMsgRows    int
	refused                   int64
	txIDs

	// The retries, read from the provider's ledger: the keys called more
	// than once (in ledger order), how many times each was called again, and
	// for a key called again sooner than its backoff, what the ledger shows.
	retried []string
	retries map[string]int
	tooSoon map[string]string

	// The --flaky-key message's row and failed calls, when there is one.
	flakyStatus   outbox.Status
	flakyPayment  outbox.PaymentStatus
	flakyAttempts int
	flakyFails    int

	starvation starvation // the messages queued behind the first poison
}

func (o *session16Options) metrics(r *session16Run) session16Metrics {
	f := o.ledgerMetrics(r.ledger, r.prov)
	f.naive, f.capped, f.ended = r.naive, r.capped, r.ended
	for _, e := range r.events {
		if e.Kind == worker.Retrying && e.Delay > 0 && (slices.Contains(o.PoisonKeys, e.Key) || e.Key == o.flaky.key) {
			f.backoffs = append(f.backoffs, e.Delay)
		}
	}
	return f
}

// ledgerMetrics reads the metrics of a run from its rows and the provider's ledger.
func (o *session16Options) ledgerMetrics(l Ledger, prov *provider.Provider) session16Metrics {
	f := session16Metrics{poisonErrorsSet: len(o.PoisonKeys) > 0}
	poison := func(key string) bool { return slices.Contains(o.PoisonKeys, key) }
	perKey := map[string]int{}
	for _, c := range l.Calls {
		f.calls++
		perKey[c.Key]++
		if c.Failed() {
			f.failedCalls++
			if c.Key == o.flaky.key {
				f.flakyFails++
			}
		} else if poison(c.Key) && (c.Outcome == provider.Paid || c.TransactionID != "") {
			f.poisonMoneyTaken++
		}
	}
	for _, m := range l.Messages {
		switch m.Status {
		case outbox.Pending:
			f.pending++
		case outbox.Processing:
			f.processing++
		case outbox.DeadLettered:
			f.deadLettered++
		}
		if poison(m.Key) {
			f.poisonAttempts = append(f.poisonAttempts, m.AttemptCount)
			f.poisonCalls = append(f.poisonCalls, perKey[m.Key])
			if perKey[m.Key] >= o.RetryCap {
				f.atCap = append(f.atCap, m.Key)
			}
			f.poisonStatuses = append(f.poisonStatuses, m.Status)
			f.poisonErrorsSet = f.poisonErrorsSet && m.LastError != ""
			if m.MaxAttempts > 0 {
				f.poisonCeilings++
			}
			continue
		}
		f.healthy++
		if m.Status == outbox.Processed {
			f.healthyProcessed++
		}
	}
	for _, p := range l.Payments {
		if poison(p.Key) {
			f.poisonPayments = append(f.poisonPayments, p.Status)
			continue
		}
		switch p.Status {
		case outbox.Paid:
			f.paid++
		case outbox.Failed:
			f.failed++
		}
	}
	if m, ok := l.Message(o.flaky.key); ok {
		f.flakyStatus, f.flakyAttempts = m.Status, m.AttemptCount
		p, _ := l.Payment(o.flaky.key)
		f.flakyPayment = p.Status
	}
	o.readRetries(&f, l.Calls)
	f.starvation = o.readStarvation(l)
	f.dupPayments, f.dupMessages = l.DuplicateRows()
	f.maxPayRows, f.maxMsgRows = l.MaxRowsPerKey()
	f.txIDs = readTxIDs(l, prov)
	f.refused = l.Refused
	return f
}

// readRetries reads every retry from the provider's ledger: a key's call
// after its first is a retry, due no sooner than the course's backoff for
// the attempt before it (courseBackoff) and never at the same instant.
func (o *session16Options) readRetries(f *session16Metrics, calls []provider.Call) {
	f.retries, f.tooSoon = map[string]int{}, map[string]string{}
	last, attempt := map[string]time.Time{}, map[string]int{}
	for _, c := range calls {
		prev, seen := last[c.Key]
		last[c.Key] = c.At
		attempt[c.Key]++
		if !seen {
			continue
		}
		if f.retries[c.Key] == 0 {
			f.retried = append(f.retried, c.Key)
		}
		f.retries[c.Key]++
		if f.tooSoon[c.Key] != "" {
			continue
		}
		want := o.courseBackoff(attempt[c.Key] - 1)
		switch waited := c.At.Sub(prev); {
		case waited <= 0:
			f.tooSoon[c.Key] = fmt.Sprintf("%s called again at %s, the instant of the call before: no backoff (--base-backoff %s)",
				c.Key, clock.Stamp(c.At), durationText(o.BaseBackoff))
		case waited < want:
			f.tooSoon[c.Key] = fmt.Sprintf("%s called at %s and again at %s, sooner than its backoff of %s",
				c.Key, clock.Stamp(prev), clock.Stamp(c.At), clock.Millis(want))
		}
	}
}

// courseBackoff is the course's backoff after failed attempt n: base ×
// 2^(n-1), at most --max-backoff when it is set. It is written here again,
// not taken from the worker's policy, so that the check judges the policy.
func (o *session16Options) courseBackoff(n int) time.Duration {
	d := o.BaseBackoff
	for i := 1; i < n && d < time.Duration(maxSpan); i++ {
		d *= 2
	}
	if o.MaxBackoff > 0 && d > o.MaxBackoff {
		d = o.MaxBackoff
	}
	return d
}
