package wassal

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
)

// session17Figures are the numbers a Day 17 run is judged by.
type session17Figures struct {
	dead, released, notReleased []string
	largestBatch, batches       int
	redriveAttempts, failed     int // worker attempts during the redrive, and how many failed
	verifyCalls                 int
	processed, deadAgain        []string
	undercounted                []string // AttemptCount lower than the attempts really made
	deadAtLost                  []string // the first DeadLetteredAtUtc no longer on the row nor in Redrives
	historyKept                 int      // Redrives rows matching the entry's terminal state before the redrive
	tokenUp                     int      // released entries whose ClaimToken rose
	approvals, redriveAudit     int
	closed, closedUnverified    int
	pending                     []string
	txIDs
}

// attemptsMade counts the attempts workers really made on each message.
func attemptsMade(run *session17Run) map[string]int {
	made := map[string]int{}
	for _, e := range run.events {
		if e.Kind != worker.Advanced {
			made[e.Key]++
		}
	}
	return made
}

func (o *session17Options) figures(run *session17Run) session17Figures {
	l := run.ledger
	f := session17Figures{dead: run.deadKeys, notReleased: run.notRelease, batches: len(run.batches),
		verifyCalls: len(run.verifyAt), pending: pendingKeys(l.Payments)}
	f.released = run.deadKeys[:len(run.deadKeys)-len(run.notRelease)]
	f.largestBatch = len(f.released)
	if run.audited {
		f.largestBatch = 0
		for _, b := range run.batches {
			f.largestBatch = max(f.largestBatch, len(b))
		}
	}
	for _, e := range run.events {
		if e.Kind != worker.Advanced && !e.At.Before(run.redriveAt) {
			f.redriveAttempts++
			if e.Kind != worker.Processed {
				f.failed++
			}
		}
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
			if pay, _ := l.Payment(rd.key); rd.verifiedTx != pay.ProviderTransactionID || run.verifyAt[rd.key].IsZero() {
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
	for _, e := range run.audit {
		if strings.HasPrefix(e.Action, "redrive-") {
			f.redriveAudit++
		}
		if e.Action == "redrive-approved" {
			f.approvals++
		}
	}
	f.txIDs = readTxIDs(l, run.prov)
	return f
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

func (o *session17Options) beforeChecks(r *report.Report, f session17Figures) {
	r.Check("poison loop started again", f.failed > 0 && len(f.deadAgain) > 0,
		fmt.Sprintf("%d failed attempts after the reset; %d of %d dead-lettered again", f.failed, len(f.deadAgain), len(f.released)))
	r.Check("the rows' failure history is gone", len(f.undercounted) > 0 && len(f.deadAtLost) > 0,
		fmt.Sprintf("AttemptCount undercounts on %s; first DeadLetteredAtUtc lost on %s", keysText(f.undercounted), keysText(f.deadAtLost)))
	r.Check("no record of who or why", f.redriveAudit == 0, fmt.Sprintf("%d redrive entries in the audit log", f.redriveAudit))
	f.txIDs.check(r)
}

func (o *session17Options) afterChecks(r *report.Report, run *session17Run, f session17Figures) {
	r.Check("redrive authorised", f.approvals == 1 && o.Approver != "" && o.Reason != "",
		fmt.Sprintf("approver %s, reason %q, %d approval record", o.Approver, o.Reason, f.approvals))
	r.Check("audit record written", f.approvals == 1 && f.redriveAudit > len(f.released),
		fmt.Sprintf("%d redrive entries for %d released dead letter(s)", f.redriveAudit, len(f.released)))
	r.Check("counters never reset", len(f.undercounted) == 0,
		fmt.Sprintf("%d of %d rows count every attempt made; generation recorded in Redrives", len(f.released)-len(f.undercounted), len(f.released)))
	r.Check("original terminal reason preserved", f.historyKept == len(f.released) && len(f.released) > 0,
		fmt.Sprintf("%d of %d Redrives rows keep the original AttemptCount, LastError and DeadLetteredAtUtc", f.historyKept, len(f.released)))
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
