package wassal

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/scenarios"
)

// shutdownMetrics are the numbers a shutdown run is judged by, read from
// what it left behind: the provider's ledger, the notification rows, the
// outbox rows as they stood at the stop, at the deadline and when worker-a
// was gone, and each release's row before and after.
type shutdownMetrics struct {
	calls         map[string][]provider.Call
	callCount     int
	repeated      []string
	notified      map[string][]notification
	notifications int
	maxNotified   int
	inFlight      []string // held by worker-a at the stop
	drained       []string // notified by worker-a after the stop
	released      []string
	leftToLease   []string // held by worker-a when it was gone
	unfinished    int      // attempts counted that no completion ended
	lastNotified  time.Time
	paid, failed  int
	txIDs

	drains bool
	gone   time.Time
	killed bool
	ended  time.Time
}

func (o *shutdownOptions) metrics(run *shutdownRun) shutdownMetrics {
	l := run.ledger
	f := shutdownMetrics{calls: callsByKey(l.Calls), notified: map[string][]notification{},
		notifications: len(run.notifications), drains: run.drains, gone: run.gone, killed: run.killed, ended: run.ended,
		inFlight: heldKeys(run.atStop, "worker-a"), leftToLease: heldKeys(run.atGone, "worker-a")}
	for _, k := range PaymentKeys(shutdownPays) {
		f.callCount += len(f.calls[k])
		if len(f.calls[k]) > 1 {
			f.repeated = append(f.repeated, k)
		}
	}
	for _, n := range run.notifications {
		f.notified[n.key] = append(f.notified[n.key], n)
		f.maxNotified = max(f.maxNotified, len(f.notified[n.key]))
		at, _ := time.Parse(clock.ISOLayout, n.at)
		if n.by == "worker-a" && at.After(run.stop) {
			f.drained = append(f.drained, n.key)
		}
		f.lastNotified = latest(f.lastNotified, at)
	}
	for _, x := range run.releases {
		f.released = append(f.released, x.key)
	}
	for _, m := range l.Messages {
		f.unfinished += max(m.AttemptCount-len(f.notified[m.Key]), 0)
	}
	f.paid, f.failed = paidFailed(l.Payments)
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

// metricList is every shutdown metric: its row in the BEFORE vs AFTER table
// and its JSON metric.
func (o *shutdownOptions) metricList() []scenarios.Metric[shutdownMetrics] {
	type fs = shutdownMetrics
	calls := func(f fs) string {
		if len(f.repeated) == 0 {
			return strconv.Itoa(f.callCount)
		}
		return fmt.Sprintf("%d (%d asked twice)", f.callCount, len(f.repeated))
	}
	gone := func(f fs) string {
		if f.gone.IsZero() {
			return none
		}
		if f.killed {
			return clock.Stamp(f.gone) + " (killed)"
		}
		return clock.Stamp(f.gone) + " (exited)"
	}
	return slices.Concat(
		[]scenarios.Metric[fs]{
			keysMetric("Held by worker-a at the stop", "in_flight_at_stop", func(f fs) []string { return f.inFlight }),
			keysMetric("Finished in the drain", "finished_in_drain", func(f fs) []string { return f.drained }),
			keysMetric("Released to Pending", "released", func(f fs) []string { return f.released }),
			keysMetric("Left to their lease", "left_to_lease", func(f fs) []string { return f.leftToLease }),
			{Label: "worker-a gone at", Key: "worker_a_gone", Show: gone, Value: func(f fs) any { return clock.ISO(f.gone) }},
			intMetric("Attempts counted, not finished", "unfinished_attempts", func(f fs) int { return f.unfinished }),
			{Label: "Provider status checks", Key: "status_checks", Show: calls, Value: func(f fs) any { return f.callCount }},
			{Label: "Notifications (max per payment)", Key: "notifications",
				Show:  func(f fs) string { return fmt.Sprintf("%d (%d)", f.notifications, f.maxNotified) },
				Value: func(f fs) any { return f.notifications }},
			{Label: "Last payment notified", Key: "last_notified",
				Show: func(f fs) string { return stampOrNone(f.lastNotified) }, Value: func(f fs) any { return clock.ISO(f.lastNotified) }},
		},
		resolvedMetrics("Resolved Paid / Failed", func(f fs) int { return f.paid }, func(f fs) int { return f.failed }),
		[]scenarios.Metric[fs]{
			fakeMetric(func(f fs) txIDs { return f.txIDs }),
			metric("scenario_end", func(f fs) any { return clock.ISO(f.ended) }),
		},
	)
}

// stampOrNone is a moment as a report shows it, or "none" for no moment.
func stampOrNone(t time.Time) string {
	if t.IsZero() {
		return none
	}
	return clock.Stamp(t)
}

// rowOf is key's row in rows (the zero Message when it has none).
func rowOf(rows []outbox.Message, key string) outbox.Message {
	for _, m := range rows {
		if m.Key == key {
			return m
		}
	}
	return outbox.Message{}
}

// retakenAfter is the first status check of key after t: the claim that
// took it again.
func (f shutdownMetrics) retakenAfter(key string, t time.Time) (provider.Call, bool) {
	for _, c := range f.calls[key] {
		if !c.At.Before(t) {
			return c, true
		}
	}
	return provider.Call{}, false
}
