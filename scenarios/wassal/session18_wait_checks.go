package wassal

import (
	"fmt"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// waitMetrics are the numbers a waiting run is judged by, read from what it
// left behind: the claim statements the engine ran for each worker (and the
// rows each returned), each row's CreatedAtUtc, the provider's ledger and
// the notification rows.
type waitMetrics struct {
	polls, empty, idle int
	byWorker           map[string]waitCount
	latency            map[string]time.Duration // insert to claim, by key
	maxKey             string
	maxLatency, mean   time.Duration
	inserted, claimed  int
	notified           map[string][]notification
	notifications      int
	maxNotified        int
	wakes              int
	paid, failed       int
	txIDs

	ended time.Time
}

// waitCount is one worker's polls.
type waitCount struct {
	polls, found, idle int
	minIdleGap         time.Duration // -1: fewer than two idle polls
	closest            [2]time.Time  // the two idle polls minIdleGap apart
}

func (o *waitOptions) metrics(run *waitRun) waitMetrics {
	l := run.ledger
	f := waitMetrics{byWorker: map[string]waitCount{}, latency: map[string]time.Duration{}, notified: map[string][]notification{},
		notifications: len(run.notifications), wakes: run.wakes, inserted: len(l.Messages), ended: run.ended}
	calls, inserts, done := callsByKey(l.Calls), map[time.Time]bool{}, map[string]bool{}
	var sum time.Duration
	for _, m := range l.Messages {
		inserts[m.CreatedAt] = true
		if cs := calls[m.Key]; len(cs) > 0 {
			w := cs[0].At.Sub(m.CreatedAt)
			f.latency[m.Key], sum, f.claimed = w, sum+w, f.claimed+1
			if f.maxKey == "" || w > f.maxLatency {
				f.maxKey, f.maxLatency = m.Key, w
			}
		}
	}
	if f.claimed > 0 {
		f.mean = sum / time.Duration(f.claimed)
	}
	for _, n := range run.notifications {
		f.notified[n.key] = append(f.notified[n.key], n)
		f.maxNotified = max(f.maxNotified, len(f.notified[n.key]))
		done[n.by+" "+n.at] = true
	}
	last := map[string]time.Time{}
	for _, p := range run.polls {
		c, ok := f.byWorker[p.worker]
		if !ok {
			c.minIdleGap = -1
		}
		c.polls++
		f.polls++
		switch {
		case p.found > 0:
			c.found++
		case inserts[p.at] || done[p.worker+" "+clock.ISO(p.at)]:
			f.empty++ // woken by an insert, or looking again after its own message
		default:
			f.empty, f.idle, c.idle = f.empty+1, f.idle+1, c.idle+1
			if prev, ok := last[p.worker]; ok && (c.minIdleGap < 0 || p.at.Sub(prev) < c.minIdleGap) {
				c.minIdleGap, c.closest = p.at.Sub(prev), [2]time.Time{prev, p.at}
			}
			last[p.worker] = p.at
		}
		f.byWorker[p.worker] = c
	}
	f.paid, f.failed = paidFailed(l.Payments)
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

func (o *waitOptions) metricList() []scenarios.Metric[waitMetrics] {
	type fw = waitMetrics
	return slices.Concat(
		[]scenarios.Metric[fw]{
			intMetric("Polls (claim statements)", "polls", func(f fw) int { return f.polls }),
			intMetric("Polls that found nothing", "empty_polls", func(f fw) int { return f.empty }),
			intMetric("Idle polls (not woken, not after work)", "idle_polls", func(f fw) int { return f.idle }),
			intMetric("Wakes delivered to an idle worker", "wakes", func(f fw) int { return f.wakes }),
			{Label: "Messages claimed", Key: "claimed",
				Show:  func(f fw) string { return fmt.Sprintf("%d of %d", f.claimed, f.inserted) },
				Value: func(f fw) any { return f.claimed }},
			{Label: "Wait from insert to claim, longest", Key: "max_wait_ms",
				Show: func(f fw) string { return durationText(f.maxLatency) }, Value: func(f fw) any { return f.maxLatency.Milliseconds() }},
			{Label: "Wait from insert to claim, mean", Key: "mean_wait_ms",
				Show: func(f fw) string { return durationText(f.mean) }, Value: func(f fw) any { return f.mean.Milliseconds() }},
			{Label: "Notifications (max per payment)", Key: "notifications",
				Show:  func(f fw) string { return fmt.Sprintf("%d (%d)", f.notifications, f.maxNotified) },
				Value: func(f fw) any { return f.notifications }},
		},
		resolvedMetrics("Resolved Paid / Failed", func(f fw) int { return f.paid }, func(f fw) int { return f.failed }),
		[]scenarios.Metric[fw]{
			fakeMetric(func(f fw) txIDs { return f.txIDs }),
			metric("scenario_end", func(f fw) any { return clock.ISO(f.ended) }),
		},
	)
}

func (o *waitOptions) checks(r *report.Report, run *waitRun, f waitMetrics) {
	if !o.after {
		o.polledEmpty(r, f)
		o.waitedForPoll(r, run, f)
	} else {
		o.claimedAtInsert(r, run, f)
		o.noBusyPolling(r, f)
	}
	o.eachOnce(r, run, f)
	f.txIDs.invariant(r)
}

// noMessages says why no wait could be measured.
const noMessages = "the producer wrote nothing (--messages 0): no message waited to be claimed; drop --messages 0"

// polledEmpty is the BEFORE's first demonstration: idle polls, counted
// from the claim statements that returned no row, outnumber the messages
// claimed.
func (o *waitOptions) polledEmpty(r *report.Report, f waitMetrics) {
	a, b := f.byWorker["worker-a"], f.byWorker["worker-b"]
	r.Check("idle workers polled an empty queue again and again", f.idle > f.claimed,
		fmt.Sprintf("%d of %d polls found nothing, %d of them idle (worker-a %d, worker-b %d), for %s claimed",
			f.empty, f.polls, f.idle, a.idle, b.idle, report.Plural(f.claimed, "message")))
}

// waitedForPoll is the BEFORE's second: a message inserted between two
// polls waited for the next one (its row's CreatedAtUtc to its first status check).
func (o *waitOptions) waitedForPoll(r *report.Report, run *waitRun, f waitMetrics) {
	const name = "each new message waited for the next poll"
	if f.claimed == 0 {
		r.NotExercised(name, noMessages)
		return
	}
	m := messageOf(run.ledger, f.maxKey)
	if f.maxLatency == 0 {
		r.Check(name, false, fmt.Sprintf("every message was claimed at its insert's moment (%s claimed): a poll "+
			"came each time one landed", report.Plural(f.claimed, "message")))
		return
	}
	r.Check(name, true, fmt.Sprintf("%s waited %s (inserted %s, claimed %s), the longest; mean %s over %s",
		f.maxKey, durationText(f.maxLatency), clock.Stamp(m.CreatedAt), clock.Stamp(m.CreatedAt.Add(f.maxLatency)),
		durationText(f.mean), report.Plural(f.claimed, "message")))
}

// claimedAtInsert is the AFTER's: each message inserted was claimed at its
// insert's moment on the scenario clock.
func (o *waitOptions) claimedAtInsert(r *report.Report, run *waitRun, f waitMetrics) {
	const name = "each message was claimed the moment it was inserted"
	if f.inserted == 0 {
		r.NotExercised(name, noMessages)
		return
	}
	for _, m := range run.ledger.Messages {
		if _, ok := f.latency[m.Key]; !ok {
			r.Check(name, false, fmt.Sprintf("%s, inserted %s, was never claimed", m.Key, clock.Stamp(m.CreatedAt)))
			return
		}
	}
	if f.maxLatency > 0 {
		m := messageOf(run.ledger, f.maxKey)
		r.Check(name, false, fmt.Sprintf("%s inserted %s, claimed %s: it waited %s for a poll", f.maxKey,
			clock.Stamp(m.CreatedAt), clock.Stamp(m.CreatedAt.Add(f.maxLatency)), durationText(f.maxLatency)))
		return
	}
	r.Check(name, true, fmt.Sprintf("%s, each claimed at its insert's moment (wait %s)", report.Plural(f.claimed, "message"),
		durationText(f.maxLatency)))
}

// noBusyPolling is the AFTER's: the idle polls of each worker (empty, not
// at an insert's moment, not right after its own completion) are at least
// --fallback apart.
func (o *waitOptions) noBusyPolling(r *report.Report, f waitMetrics) {
	const name = "no busy polling: an idle worker polled at most once per --fallback"
	for _, w := range []string{"worker-a", "worker-b"} {
		if c := f.byWorker[w]; c.minIdleGap >= 0 && c.minIdleGap < o.Fallback {
			r.Check(name, false, fmt.Sprintf("%s polled an empty queue at %s and again at %s (--fallback %s)",
				w, clock.Stamp(c.closest[0]), clock.Stamp(c.closest[1]), durationText(o.Fallback)))
			return
		}
	}
	r.Check(name, true, fmt.Sprintf("%d idle polls, each worker's at least %s apart; %d more empty polls came at "+
		"an insert's moment or right after the worker's own message", f.idle, durationText(o.Fallback), f.empty-f.idle))
}

// eachOnce is the invariant of both designs: each payment written was
// completed and notified exactly once.
func (o *waitOptions) eachOnce(r *report.Report, run *waitRun, f waitMetrics) {
	const name = "each payment written was completed and notified once"
	for _, m := range run.ledger.Messages {
		if ns := f.notified[m.Key]; !processedAtOne(run.ledger, m.Key, ns) {
			r.Invariant(name, false, fmt.Sprintf("%s notified %d times (%s), the row %s", m.Key, len(ns),
				report.Dash(notifiedText(ns)), m.Status))
			return
		}
	}
	if f.inserted == 0 {
		r.InvariantOnNone(name, true, "no payment written, none completed",
			"the producer wrote nothing (--messages 0), so nothing was to be completed")
		return
	}
	r.Invariant(name, true, fmt.Sprintf("%s Processed, one notification each", report.Plural(f.inserted, "payment")))
}
