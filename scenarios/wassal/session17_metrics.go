package wassal

import (
	"fmt"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// session17Metrics are the numbers a Day 17 run is judged by. The checks
// read them from what the run left behind: the outbox rows (and a snapshot of
// them taken before the redrive), the Redrives rows, the audit log and the
// provider's ledger of every call.
type session17Metrics struct {
	dead, released, notReleased []string
	largestBatch, batches       int
	redriveAttempts, failed     int // worker attempts during the redrive, and failed provider calls
	verifyCalls                 int
	processed, deadAgain        []string
	undercounted                []string // AttemptCount lower than the attempts really made
	deadAtLost                  []string // the first DeadLetteredAtUtc no longer on the row nor in Redrives
	historyKept                 int      // Redrives rows matching the entry's terminal state before the redrive
	redriveRows                 int      // rows in Redrives
	tokenUp                     int      // released entries whose ClaimToken rose
	approvals, redriveAudit     int
	approver, reason            string // as the approval and the Redrives rows record them
	recordsAgree                bool   // every Redrives row names the approver and reason the approval names
	closed, closedUnverified    int
	pending                     []string
	parkedIntact                int      // dead letters left parked that are still DeadLettered with their count
	halted                      int      // redrive-halted entries in the audit log
	statusChecks, throttled     int      // the throttle's ledger: status checks from the redrive on, and those throttled
	busiest                     int      // the most admitted status checks in one window
	poisonEnds                  []string // each poison key with its payment status at the end: "PAY-003 Failed"
	poisonAsDay16               int      // poison payments that end Failed, no tx id, the provider's answer Declined, never charged
	txIDs

	audited bool      // the run's design: the audited redrive
	ended   time.Time // scenario time at the end of the run
}

// verifications counts, per message id, the status checks the audit log
// says the redrive made to verify a replay before closing it.
func verifications(audit []outbox.AuditEntry) map[int64]int {
	out := map[int64]int{}
	for _, e := range audit {
		if e.Action == actionVerified || e.Action == actionUnverified {
			out[e.MessageID]++
		}
	}
	return out
}

// attemptsMade counts the attempts workers really made on each message: the
// provider's status checks for its key, less the redrive's verifications.
func attemptsMade(run *session17Run) map[string]int {
	made := map[string]int{}
	for _, c := range run.ledger.Calls {
		made[c.Key]++
	}
	for _, c := range run.throttle.Throttled() {
		made[c.Key]++ // a throttled status check is an attempt the provider refused
	}
	for id, n := range verifications(run.audit) {
		for _, m := range run.ledger.Messages {
			if m.ID == id {
				made[m.Key] -= n
			}
		}
	}
	return made
}

func (o *session17Options) metrics(run *session17Run) session17Metrics {
	l := run.ledger
	f := session17Metrics{dead: run.deadKeys, pending: pendingKeys(l.Payments), redriveRows: len(run.redrives),
		audited: run.audited, ended: run.ended}
	since := l.Calls[min(run.callsAtRedrive, len(l.Calls)):]
	replayed := map[string]bool{}
	for _, c := range since {
		replayed[c.Key] = true
		if c.Failed() {
			f.failed++
		}
	}
	throttled := run.throttle.Throttled()
	for _, c := range throttled {
		replayed[c.Key] = true
	}
	f.statusChecks, f.throttled = len(run.throttle.Calls()), len(throttled)
	f.busiest, _ = run.throttle.Busiest()
	for _, c := range throttled {
		if c.Op == opAttempt {
			f.failed++ // a worker's attempt the provider throttled failed
		}
	}
	for _, n := range verifications(run.audit) {
		f.verifyCalls += n
	}
	f.redriveAttempts = len(since) + f.throttled - f.verifyCalls
	f.readRelease(run, replayed)
	kept := f.readRedriveRows(run, since)
	f.readReleased(run, kept)
	f.readApproval(run)
	for _, k := range o.PoisonKeys {
		pay, _ := l.Payment(k)
		f.poisonEnds = append(f.poisonEnds, k+" "+string(pay.Status))
		if endsAsDay16Says(l, pay) {
			f.poisonAsDay16++
		}
	}
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

// readRelease reads which dead letters the redrive released (replayed: the
// keys the provider heard of since it began) and in how many batches.
func (f *session17Metrics) readRelease(run *session17Run, replayed map[string]bool) {
	for _, k := range run.deadKeys {
		if replayed[k] {
			f.released = append(f.released, k)
			continue
		}
		f.notReleased = append(f.notReleased, k)
		if m := messageOf(run.ledger, k); m.Status == outbox.DeadLettered && m.AttemptCount == run.before[k].AttemptCount {
			f.parkedIntact++
		}
	}
	f.largestBatch = len(f.released) // the blind reset releases everything at once
	if run.audited {
		f.largestBatch = 0
		perBatch := map[int]int{}
		for _, rd := range run.redrives {
			perBatch[rd.batch]++
			f.largestBatch = max(f.largestBatch, perBatch[rd.batch])
		}
		f.batches = len(perBatch)
	}
}

// readRedriveRows reads the Redrives rows: how many kept the dead letter's
// history (kept, by key) and how many closed, verified or not.
func (f *session17Metrics) readRedriveRows(run *session17Run, since []provider.Call) (kept map[string]bool) {
	kept = map[string]bool{}
	for _, rd := range run.redrives {
		b := run.before[rd.key]
		if rd.origAttempts == b.AttemptCount && rd.origLastError == b.LastError && rd.origDeadAt == clock.ISO(b.DeadLetteredAt) {
			f.historyKept++
			kept[rd.key] = true
		}
		if rd.outcome == outcomeClosed {
			f.closed++
			if !verifiedBeforeClosing(run, rd, since) {
				f.closedUnverified++
			}
		}
	}
	return kept
}

// readReleased reads how each released message ended, from its row against
// the dead letter it was.
func (f *session17Metrics) readReleased(run *session17Run, kept map[string]bool) {
	l := run.ledger
	made := attemptsMade(run)
	for _, k := range f.released {
		b, m := run.before[k], messageOf(l, k)
		switch m.Status {
		case outbox.Processed:
			f.processed = append(f.processed, k)
		case outbox.DeadLettered:
			f.deadAgain = append(f.deadAgain, k)
		}
		if m.AttemptCount < made[k] {
			f.undercounted = append(f.undercounted, k)
		}
		if !kept[k] && !m.DeadLetteredAt.Equal(b.DeadLetteredAt) {
			f.deadAtLost = append(f.deadAtLost, k)
		}
		if m.ClaimToken > b.ClaimToken {
			f.tokenUp++
		}
	}
}

// readApproval reads who approved the redrive and why, from the audit log and
// the Redrives rows, and whether the two agree.
func (f *session17Metrics) readApproval(run *session17Run) {
	f.approver, f.reason, f.recordsAgree = "(none)", "(none)", true
	for _, e := range run.audit {
		if slices.Contains(redriveActions, e.Action) {
			f.redriveAudit++
		}
		if e.Action == actionHalted {
			f.halted++
		}
		if e.Action == actionApproved {
			f.approvals++
			f.approver = e.Actor
		}
	}
	// The reason is read from the Redrives rows, which record it in a
	// column of its own; the approval's audit entry says it only in prose.
	if len(run.redrives) > 0 {
		f.reason = run.redrives[0].reason
	}
	for _, rd := range run.redrives {
		f.recordsAgree = f.recordsAgree && rd.approver == f.approver && rd.reason == f.reason
	}
}

// endsAsDay16Says reads what Day 16 says of its poison message from the
// rows and the provider's ledger: a would-be Failed payment, so
// dead-lettering it lost no money. The payment row is Failed without a
// transaction id, the provider's last answer for it is Declined, and no call
// for it ever carried a transaction id.
func endsAsDay16Says(l Ledger, pay outbox.Payment) bool {
	said, ok := l.ProviderSaid(pay.Key)
	if !ok || said.Outcome != provider.Declined || pay.Status != outbox.Failed || pay.ProviderTransactionID != "" {
		return false
	}
	for _, c := range l.Calls {
		if c.Key == pay.Key && c.TransactionID != "" {
			return false
		}
	}
	return true
}

// verifiedBeforeClosing reads the provider's ledger for a closed redrive:
// after the replay's own attempts (the rise of the row's AttemptCount since
// the redrive) the provider was asked once more, no later than the close,
// and its answer is the one the payment row and the Redrives row record.
func verifiedBeforeClosing(run *session17Run, rd redriveRow, since []provider.Call) bool {
	m, _ := run.ledger.Message(rd.key)
	pay, _ := run.ledger.Payment(rd.key)
	var calls []provider.Call
	for _, c := range since {
		if c.Key == rd.key && clock.ISO(c.At) <= rd.close {
			calls = append(calls, c)
		}
	}
	if len(calls) <= m.AttemptCount-rd.origAttempts {
		return false // every call was a replay attempt: none was a verification
	}
	last := calls[len(calls)-1]
	return !last.Failed() && last.TransactionID == rd.verifiedTx && agrees(provider.Answer{Outcome: last.Outcome, TransactionID: last.TransactionID}, pay)
}

func messageOf(l Ledger, key string) outbox.Message {
	m, _ := l.Message(key)
	return m
}

// metricList is every Day 17 metric: its row in the BEFORE vs AFTER table
// and its JSON metric.
func (o *session17Options) metricList() []scenarios.Metric[session17Metrics] {
	type f17 = session17Metrics
	who := func(f f17) string {
		if !f.audited {
			return "nobody / no reason"
		}
		return o.Approver + " / recorded"
	}
	released := func(f f17) string {
		if !f.audited {
			return fmt.Sprintf("%d, all at once", len(f.released))
		}
		s := fmt.Sprintf("%d in %s of at most %d", len(f.released), report.Plural(f.batches, "batch"), f.largestBatch)
		if len(f.notReleased) > 0 {
			s += "; left parked " + countWith(f.notReleased)
		}
		return s
	}
	history := func(f f17) string {
		if !f.audited {
			return fmt.Sprintf("no: cleared on %s, no copy", report.Plural(len(f.released), "row"))
		}
		return fmt.Sprintf("yes: %d of %d Redrives rows", f.historyKept, len(f.released))
	}
	return slices.Concat(
		[]scenarios.Metric[f17]{
			keysMetric("Dead letters at the redrive", "dead_letters", func(f f17) []string { return f.dead }),
			{Label: "Authorised by / reason", Show: who},
			{Label: "Released back to Pending", Key: "released", Show: released, Value: func(f f17) any { return len(f.released) }},
			metric("left_parked", func(f f17) any { return len(f.notReleased) }),
			metric("largest_batch", func(f f17) any { return f.largestBatch }),
			{Label: "Worker attempts in the redrive", Key: "redrive_attempts",
				Show:  func(f f17) string { return failedOf(f.redriveAttempts, f.failed) },
				Value: func(f f17) any { return f.redriveAttempts }},
			metric("redrive_attempts_failed", func(f f17) any { return f.failed }),
			intMetric("Verifications before closing", "verification_checks", func(f f17) int { return f.verifyCalls }),
			{Label: "Status checks throttled", Key: "throttled_status_checks",
				Show: func(f f17) string {
					return fmt.Sprintf("%d of %d, at most %d in a window", f.throttled, f.statusChecks, f.busiest)
				},
				Value: func(f f17) any { return f.throttled }},
		},
		twoMetrics("Processed / dead-lettered again", "processed", "dead_lettered_again",
			func(f f17) int { return len(f.processed) }, func(f f17) int { return len(f.deadAgain) }),
		[]scenarios.Metric[f17]{
			keysMetric("AttemptCount undercounts", "undercounted_rows", func(f f17) []string { return f.undercounted }),
			{Label: "Original history kept", Key: "history_kept", Show: history,
				Value: func(f f17) any { return f.historyKept }},
			intMetric("Redrive audit entries", "redrive_audit_entries", func(f f17) int { return f.redriveAudit }),
			metric("pending_payments", func(f f17) any { return len(f.pending) }),
			{Label: "Poison message at the end", Key: "poison_ends_as_day16_says",
				Show:  func(f f17) string { return keysText(f.poisonEnds) },
				Value: func(f f17) any { return f.poisonAsDay16 }},
			metric("closed", func(f f17) any { return f.closed }),
			metric("provider_fixed", func(f17) any { return o.ProviderFixed }),
			metric("scenario_end", func(f f17) any { return clock.ISO(f.ended) }),
		},
	)
}

// noDeadLetters is why a Day 17 run without dead letters exercised nothing.
const noDeadLetters = "Day 16 left no dead letter to redrive (--poison-key none): name a --poison-key"
