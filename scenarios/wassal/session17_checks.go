package wassal

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
)

// session17Figures are the numbers a Day 17 run is judged by. The checks
// read them from what the run left behind: the outbox rows (and a snapshot of
// them taken before the redrive), the Redrives rows, the audit log and the
// provider's ledger of every call.
type session17Figures struct {
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
	txIDs
}

// verifications counts, per message id, the status checks the audit log
// says the redrive made to verify a replay before closing it.
func verifications(audit []outbox.AuditEntry) map[int64]int {
	out := map[int64]int{}
	for _, e := range audit {
		if e.Action == "redrive-verified" || e.Action == "redrive-unverified" {
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
	for id, n := range verifications(run.audit) {
		for _, m := range run.ledger.Messages {
			if m.ID == id {
				made[m.Key] -= n
			}
		}
	}
	return made
}

func (o *session17Options) figures(run *session17Run) session17Figures {
	l := run.ledger
	f := session17Figures{dead: run.deadKeys, pending: pendingKeys(l.Payments), redriveRows: len(run.redrives)}
	since := l.Calls[min(run.callsAtRedrive, len(l.Calls)):]
	replayed := map[string]bool{}
	for _, c := range since {
		replayed[c.Key] = true
		if c.Failed() {
			f.failed++
		}
	}
	for _, n := range verifications(run.audit) {
		f.verifyCalls += n
	}
	f.redriveAttempts = len(since) - f.verifyCalls
	for _, k := range run.deadKeys {
		if replayed[k] {
			f.released = append(f.released, k)
		} else {
			f.notReleased = append(f.notReleased, k)
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
	made := attemptsMade(run)
	kept := map[string]bool{}
	for _, rd := range run.redrives {
		b := run.before[rd.key]
		if rd.origAttempts == b.AttemptCount && rd.origLastError == b.LastError && rd.origDeadAt == clock.ISO(b.DeadLetteredAt) {
			f.historyKept++
			kept[rd.key] = true
		}
		if rd.outcome == "Closed" {
			f.closed++
			if !verifiedBeforeClosing(run, rd, since) {
				f.closedUnverified++
			}
		}
	}
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
	f.approver, f.reason, f.recordsAgree = "(none)", "(none)", true
	for _, e := range run.audit {
		if strings.HasPrefix(e.Action, "redrive-") {
			f.redriveAudit++
		}
		if e.Action == "redrive-approved" {
			f.approvals++
			f.approver = e.Actor
			if strings.Contains(e.Detail, "reason: "+o.Reason+";") {
				f.reason = o.Reason
			}
		}
	}
	for _, rd := range run.redrives {
		f.recordsAgree = f.recordsAgree && rd.approver == f.approver && rd.reason == f.reason
	}
	f.txIDs = readTxIDs(l, run.prov)
	return f
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

func (o *session17Options) writeMetrics(r *report.Report, b, a session17Figures) {
	who := func(audited bool) string {
		if !audited {
			return "nobody / no reason"
		}
		return fmt.Sprintf("%s / %q", o.Approver, o.Reason)
	}
	released := func(f session17Figures, audited bool) string {
		if !audited {
			return fmt.Sprintf("%d, all at once", len(f.released))
		}
		s := fmt.Sprintf("%d in %d batch(es) of at most %d", len(f.released), f.batches, f.largestBatch)
		if len(f.notReleased) > 0 {
			s += "; left parked " + countWith(f.notReleased)
		}
		return s
	}
	attempts := func(f session17Figures) string { return fmt.Sprintf("%d (%d failed)", f.redriveAttempts, f.failed) }
	shown := func(f session17Figures) string {
		if len(f.undercounted) == 0 {
			return "0"
		}
		return countWith(f.undercounted)
	}
	history := func(f session17Figures, audited bool) string {
		if !audited {
			return fmt.Sprintf("no: cleared on %d row(s), no copy", len(f.released))
		}
		return fmt.Sprintf("yes: %d of %d Redrives rows", f.historyKept, len(f.released))
	}
	rows := [][]string{
		{"Dead letters before the redrive", countWith(b.dead), countWith(a.dead)},
		{"Authorised by / reason", who(false), who(true)},
		{"Released back to Pending", released(b, false), released(a, true)},
		{"Worker attempts during the redrive", attempts(b), attempts(a)},
		{"Verification status checks before closing", strconv.Itoa(b.verifyCalls), strconv.Itoa(a.verifyCalls)},
		{"Redriven entries Processed / dead-lettered again", fmt.Sprintf("%d / %d", len(b.processed), len(b.deadAgain)), fmt.Sprintf("%d / %d", len(a.processed), len(a.deadAgain))},
		{"Rows whose AttemptCount undercounts the attempts", shown(b), shown(a)},
		{"Original LastError and DeadLetteredAtUtc kept", history(b, false), history(a, true)},
		{"Redrive entries in the audit log", strconv.Itoa(b.redriveAudit), strconv.Itoa(a.redriveAudit)},
		{"Payments PendingConfirmation at the end", countWith(b.pending), countWith(a.pending)},
		{"Fake successes", strconv.Itoa(b.fake), strconv.Itoa(a.fake)},
	}
	r.Table([]string{"Metric (real run)", "BEFORE (blind)", "AFTER (audited)"}, rows)
}

// noDeadLetters is the figure of a check about the redriven entries when there are none.
const noDeadLetters = "no dead letters (--poison-key none)"

func (o *session17Options) beforeChecks(r *report.Report, f session17Figures) {
	r.Check("poison loop started again", f.failed > 0 && len(f.deadAgain) > 0,
		fmt.Sprintf("%d failed attempts after the reset; %d of %d dead-lettered again", f.failed, len(f.deadAgain), len(f.released)))
	history := fmt.Sprintf("AttemptCount undercounts on %s; first DeadLetteredAtUtc lost on %s", keysText(f.undercounted), keysText(f.deadAtLost))
	record := fmt.Sprintf("%d redrive entries in the audit log", f.redriveAudit)
	if f.redriveRows > 0 {
		record += fmt.Sprintf("; %d Redrives rows", f.redriveRows)
	}
	if len(f.dead) == 0 {
		history = noDeadLetters + ": no history to lose"
		record = noDeadLetters + ": nothing was redriven, so nothing went unrecorded"
	}
	r.Check("the rows' failure history is gone", len(f.undercounted) > 0 && len(f.deadAtLost) > 0, history)
	r.Check("no record of who or why", len(f.released) > 0 && f.redriveAudit == 0 && f.redriveRows == 0, record)
	f.txIDs.check(r)
}

func (o *session17Options) afterChecks(r *report.Report, f session17Figures) {
	authorised := fmt.Sprintf("approver %s, reason %q, %d approval record", f.approver, f.reason, f.approvals)
	if !f.recordsAgree {
		authorised += "; the Redrives rows name another approver or reason"
	}
	r.Check("redrive authorised", f.approvals == 1 && f.approver == o.Approver && f.reason == o.Reason && f.recordsAgree, authorised)
	r.Check("audit record written", f.approvals == 1 && f.redriveAudit > len(f.released),
		fmt.Sprintf("%d redrive entries for %d released dead letter(s)", f.redriveAudit, len(f.released)))
	r.Check("counters never reset", len(f.undercounted) == 0,
		fmt.Sprintf("%d of %d rows count every attempt made; generation recorded in Redrives", len(f.released)-len(f.undercounted), len(f.released)))
	preserved := fmt.Sprintf("%d of %d Redrives rows keep the original AttemptCount, LastError and DeadLetteredAtUtc", f.historyKept, len(f.released))
	if len(f.dead) == 0 {
		preserved = noDeadLetters + ": nothing to preserve"
	}
	r.Check("original terminal reason preserved", f.historyKept == len(f.released) && (len(f.released) > 0 || len(f.dead) == 0), preserved)
	r.Check("each replay under a new claim", f.tokenUp == len(f.released),
		fmt.Sprintf("ClaimToken rose on %d of %d released entries", f.tokenUp, len(f.released)))
	r.Check("bounded batches", f.largestBatch <= o.Batch,
		fmt.Sprintf("largest batch %d ≤ %d; %d batch(es)", f.largestBatch, o.Batch, f.batches))
	r.Check("verified with the provider before closing", f.closedUnverified == 0,
		fmt.Sprintf("%d closed, %d of them without a matching status check", f.closed, f.closedUnverified))
	r.Check("incident closed: every dead letter resolved", f.closed == len(f.dead) && len(f.pending) == 0,
		fmt.Sprintf("%d of %d closed; %d dead-lettered again, %d left parked; %d PendingConfirmation",
			f.closed, len(f.dead), len(f.deadAgain), len(f.notReleased), len(f.pending)))
	f.txIDs.check(r)
}

func (o *session17Options) recordMetrics(r *report.Report, run *session17Run, f session17Figures) {
	r.Metric("dead_letters", len(f.dead))
	r.Metric("released", len(f.released))
	r.Metric("left_parked", len(f.notReleased))
	r.Metric("largest_batch", f.largestBatch)
	r.Metric("redrive_attempts", f.redriveAttempts)
	r.Metric("redrive_attempts_failed", f.failed)
	r.Metric("verification_checks", f.verifyCalls)
	r.Metric("processed", len(f.processed))
	r.Metric("dead_lettered_again", len(f.deadAgain))
	r.Metric("undercounted_rows", len(f.undercounted))
	r.Metric("history_kept", f.historyKept)
	r.Metric("redrive_audit_entries", f.redriveAudit)
	r.Metric("closed", f.closed)
	r.Metric("pending_payments", len(f.pending))
	r.Metric("provider_fixed", o.ProviderFixed)
	r.Metric("scenario_end", clock.ISO(run.ended))
}
