package wassal

import (
	"slices"
	"time"

	"outboxlab/core/outbox"
	"outboxlab/core/worker"
)

// figures are the numbers a Day 16 run is judged by.
type figures struct {
	healthy, healthyProcessed int
	poisonAttempts            []int
	poisonStatuses            []outbox.Status
	poisonPayments            []outbox.PaymentStatus
	poisonErrorsSet           bool
	backoffs                  []time.Duration // every backoff a poison retry waited, in order
	deadLettered              int
	calls, failedCalls        int
	pending, processing       int
	paid, failed              int
	dupPayments, dupMessages  int
	maxPayRows, maxMsgRows    int
	refused                   int64
	txIDs
}

func (o *session16Options) figures(r *session16Run) figures {
	var f figures
	l := r.ledger
	poison := func(key string) bool { return slices.Contains(o.PoisonKeys, key) }
	f.poisonErrorsSet = true
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
			f.poisonStatuses = append(f.poisonStatuses, m.Status)
			f.poisonErrorsSet = f.poisonErrorsSet && m.LastError != ""
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
	for _, e := range r.events {
		if e.Kind == worker.Retrying && e.Delay > 0 && poison(e.Key) {
			f.backoffs = append(f.backoffs, e.Delay)
		}
	}
	for _, c := range l.Calls {
		f.calls++
		if c.Failed() {
			f.failedCalls++
		}
	}
	f.dupPayments, f.dupMessages = l.DuplicateRows()
	f.maxPayRows, f.maxMsgRows = l.MaxRowsPerKey()
	f.txIDs = readTxIDs(l, r.prov)
	f.refused = l.Refused
	return f
}
