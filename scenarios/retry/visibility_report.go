package retry

import (
	"fmt"
	"strconv"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	verdictHeldReproduced = "BACKOFF HELD PAST THE VISIBILITY TIMEOUT — THE SAME JOB RAN TWICE AT ONCE"
	verdictHeldMissed     = "THE FAILURE MODE WAS NOT REPRODUCED"
	verdictQueueHeld      = "BACKOFF ON THE QUEUE'S TIMELINE — NO OVERLAPS, BOTH BUDGETS ENFORCED"
	verdictQueueBroken    = "THE QUEUE-TIMELINE DESIGN DID NOT HOLD"
)

// pairMetrics are the numbers a design of the visibility pair is judged by,
// all read from what the run left (see visibility_truth.go).
type pairMetrics struct {
	holds                        []heldMessage
	holdMetrics                      // what the holds show
	orphans                      int // sends of a message the sender's latest delivery was not of
	duplicates                   int // extra deliveries of notifications already sent
	sends, failedSends           int
	processed, dead, left        int
	overAttempts, overTime       int // sends beyond the retry budget, or started after the time budget
	lastHealthy                  time.Time
	retryExits, timeExits        []string
	processedOnce, processedKeys int
	rule                         ruleMetrics // the held waits and the waits on the queue against the visibility timeout
}

func (o *visibilityOptions) metrics(run *pairRun) pairMetrics {
	var f pairMetrics
	keys := map[int64]string{}
	for _, m := range run.msgs {
		keys[m.ID] = m.Key
	}
	f.holds, f.orphans = o.holdsFromTruth(run.audit, run.msgs, run.gw.ledger)
	f.holdMetrics = o.holdMetrics(f.holds, run.audit, keys)
	f.rule = o.ruleMetrics(f.holds)
	first, sends := map[string]time.Time{}, map[string]int{}
	for _, s := range run.gw.ledger {
		f.sends++
		if !s.ok {
			f.failedSends++
		}
		if _, ok := first[s.key]; !ok {
			first[s.key] = s.at
		}
		sends[s.key]++
		if s.at.Sub(first[s.key]) > o.TimeBudget {
			f.overTime++
		}
		if s.ok && run.gw.scripts[s.key] == healthy && s.done.After(f.lastHealthy) {
			f.lastHealthy = s.done
		}
	}
	for _, m := range run.msgs {
		f.overAttempts += max(sends[m.Key]-o.MaxAttempts, 0)
		f.duplicates += max(run.gw.delivered(m.Key)-1, 0)
		switch m.Status {
		case outbox.Processed:
			f.processed++
			f.processedKeys++
			if run.gw.delivered(m.Key) == 1 {
				f.processedOnce++
			}
		case outbox.DeadLettered:
			f.dead++
		default:
			f.left++
		}
		switch run.exitOf(m) {
		case backoff.RetryBudgetOut:
			f.retryExits = append(f.retryExits, m.Key)
		case backoff.TimeBudgetOut:
			f.timeExits = append(f.timeExits, m.Key)
		}
	}
	return f
}

var visibilityPair = scenarios.Pair{
	Before: heldBackoff, BeforeTitle: "Backoff held past the visibility timeout — BEFORE: the consumer sleeps holding the message",
	After: queueBackoff, AfterTitle: "Backoff on the queue's timeline — AFTER: put the message back, visible again after the backoff",
}

// pairReport is the report both scenarios of the pair write.
func (o *visibilityOptions) pairReport() pairReport[*pairRun] {
	return pairReport[*pairRun]{pair: visibilityPair, after: o.after, setup: o.writeSetup, story: o.story,
		columns: []string{"BEFORE (held backoff)", "AFTER (on the queue)"},
		metrics: o.visibilityMetricList(), beforeSide: o.heldSide(), afterSide: o.queueSide()}
}

func (run *pairRun) schema() []outbox.Table { return run.tables }
func (run *pairRun) endedAt() time.Time     { return run.ended }

func (run *pairRun) timeline() []string {
	lines := make([]string, len(run.events))
	for i, e := range run.events {
		lines[i] = fmt.Sprintf("%s  %-9s %s", clock.Stamp(e.at), e.consumer, e.text)
	}
	return lines
}

// story is the scenario's own run message by message, hold by hold and
// send by send.
func (o *visibilityOptions) story(r *report.Report, own, _, _ *pairRun) {
	r.Section("Per-message table")
	o.writePerMessage(r, own)
	o.writeRule(r, own)
	r.Section("Overlapping holds (two consumers holding one message at once)")
	o.writeOverlaps(r, own.read)
	r.Figure(visibilityTimeline(own))
	if !o.verbose {
		return
	}
	r.Section("Gateway ledger (every send)")
	writeSends(r, own.gw.ledger)
	r.Section("Outbox ledger (OutboxMessages table)")
	scenarios.WriteOutboxLedger(r, own.msgs)
}

func (o *visibilityOptions) writeSetup(r *report.Report) {
	r.Linef("Queue     %s: flaky (its first %s fail, then it goes through);",
		noteKey(1), report.Plural(o.FlakyFailures, "send"))
	r.Linef("          %s: every send fails at once (503); %s: every send hangs %s, then times out;",
		noteKey(2), noteKey(3), clockText(o.Hang))
	r.Linef("          %d healthy notifications behind them", o.Healthy)
	r.Linef("Consumers %d, polling one outbox oldest first; a claim hides a message for %s", o.Consumers, clockText(o.Visibility))
	r.Linef("          (the visibility timeout: the claim's lease)")
	r.Linef("Policy    backoff %s × 2^(n-1), capped at %s; retry budget %s;",
		clockText(o.BaseBackoff), clockText(o.MaxBackoff), report.Plural(o.MaxAttempts, "attempt"))
	r.Linef("          time budget %s from the first delivery", clockText(o.TimeBudget))
	r.Line("Designs   BEFORE: sleep through the backoff holding the message;")
	r.Line("          AFTER: put it back Pending with NextAttemptUtc = now + backoff")
	if !o.OnQueue {
		r.Line("          --backoff-on-queue=false: the AFTER design is switched off, and its consumers hold the message too")
	}
	r.Linef("Clock     a send takes %s; consumers are stepped in order on the scenario clock from %s;",
		clockText(sendTime), clock.Stamp(clock.Start))
	r.Line("          nothing sleeps for real")
	r.Linef("Demo cap  a run that has not settled %s after it started is stopped", clockText(o.horizon()))
}

func (o *visibilityOptions) writePerMessage(r *report.Report, run *pairRun) {
	rows := make([][]string, 0, len(run.msgs))
	for _, m := range run.msgs {
		sends := 0
		for _, s := range run.gw.ledger {
			if s.key == m.Key {
				sends++
			}
		}
		exit := string(run.exitOf(m))
		rows = append(rows, []string{m.Key, run.gw.scripts[m.Key].String(), string(m.Status), strconv.Itoa(m.AttemptCount),
			strconv.Itoa(sends), strconv.Itoa(run.gw.delivered(m.Key)), report.Dash(exit)})
	}
	// LastError is in the outbox ledger (--verbose).
	r.Table([]string{"Key", "Gateway script", "Outbox status", "Claims (AttemptCount)", "Sends", "Delivered to customer",
		"Way out"}, rows)
}

// shownOverlaps is how many overlapping holds the table lists; a lease far
// shorter than a send makes thousands, and the first show the pattern.
const shownOverlaps = 50

func (o *visibilityOptions) writeOverlaps(r *report.Report, f pairMetrics) {
	var rows [][]string
	for i, a := range f.holds {
		for _, b := range f.holds[i+1:] {
			if a.key == b.key && a.consumer != b.consumer && a.from.Before(b.to) && b.from.Before(a.to) && len(rows) < shownOverlaps {
				rows = append(rows, []string{a.key, a.consumer, clock.Stamp(a.leaseEnd), clock.Stamp(a.to), b.consumer, clock.Stamp(b.from)})
			}
		}
	}
	if len(rows) == 0 {
		r.Line("none: no message was ever held by two consumers at once")
		return
	}
	r.Table([]string{"Key", "first holder", "its lease ended", "it held on to", "second holder", "claimed at"}, rows)
	if f.overlaps > len(rows) {
		r.Linef("… and %d more overlapping holds (%d in all)", f.overlaps-len(rows), f.overlaps)
	}
}

func writeSends(r *report.Report, ledger []send) {
	rows := make([][]string, 0, len(ledger))
	for _, s := range ledger {
		result := "sent ✓"
		if !s.ok {
			result = "FAILED: " + s.err
		}
		rows = append(rows, []string{strconv.Itoa(s.seq), clock.Stamp(s.at), clock.Stamp(s.done), s.consumer, s.key,
			strconv.Itoa(s.attempt), result})
	}
	r.Table([]string{"#", "At", "Answered", "Consumer", "Key", "Attempt", "Result"}, rows)
}
