package wassal

import (
	"slices"
	"time"

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
}

func (o *session16Options) metrics(r *session16Run) session16Metrics {
	f := o.ledgerMetrics(r.ledger, r.prov)
	f.naive, f.capped, f.ended = r.naive, r.capped, r.ended
	for _, e := range r.events {
		if e.Kind == worker.Retrying && e.Delay > 0 && slices.Contains(o.PoisonKeys, e.Key) {
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
	f.dupPayments, f.dupMessages = l.DuplicateRows()
	f.maxPayRows, f.maxMsgRows = l.MaxRowsPerKey()
	f.txIDs = readTxIDs(l, prov)
	f.refused = l.Refused
	return f
}
