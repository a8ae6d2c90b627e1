package wassal

import (
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

// Each test here drives a real design, then changes what it left behind the
// way a wrong implementation would, and shows the check reading those rows,
// ledgers or records fails. A check that can only pass proves nothing.

// indexOfKey is the index of key's row in a slice of rows, or -1.
func indexOfKey[T any](rows []T, key string, keyOf func(T) string) int {
	return slices.IndexFunc(rows, func(x T) bool { return keyOf(x) == key })
}

func messageKey(m outbox.Message) string { return m.Key }
func paymentKey(p outbox.Payment) string { return p.Key }

// The shared check catches an outcome the provider never gave, even when no
// transaction id is out of place: Day 16's own copy of it, without the fake
// clause, passed this.
func TestTxIDCheckCatchesAFakeOutcome(t *testing.T) {
	t.Parallel()
	o, run := runDesign(t, false)
	run.ledger.Payments = slices.Clone(run.ledger.Payments)
	i := indexOfKey(run.ledger.Payments, "PAY-001", paymentKey)
	run.ledger.Payments[i].Status, run.ledger.Payments[i].ProviderTransactionID = outbox.Failed, "" // the provider said Paid
	f := o.metrics(run)
	if f.otherWithID != 0 || f.paidWithoutID != 0 {
		t.Fatalf("the forged row should break no id rule, got %+v", f.txIDs)
	}
	wantFail(t, judged(func(r *report.Report) { o.afterChecks(r, f) }), "tx ids only from provider, Paid only", "1 fake")

	// A Paid row with an id the provider never issued to that key.
	run.ledger.Payments[i].Status, run.ledger.Payments[i].ProviderTransactionID = outbox.Paid, "PRV-TX-9999"
	wantFail(t, judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }),
		"tx ids only from provider, Paid only", "1 Paid without a provider id")
}

func TestSession16ChecksReadTheProvidersLedger(t *testing.T) {
	t.Parallel()
	o, run := runDesign(t, false)
	wantPass(t, judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }), "poison tried exactly MaxAttempts")
	// One attempt more than the row admits to: the counter lies, the ledger does not.
	run.ledger.Calls = append(slices.Clone(run.ledger.Calls), provider.Call{Op: provider.OpStatusCheck, Key: "PAY-003", Err: "provider unavailable"})
	wantFail(t, judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }),
		"poison tried exactly MaxAttempts", "4 / 3 (the rows' AttemptCount says 3)")

	// Dead-lettering loses no money only while no call for the poison paid
	// and its payment is still unresolved: the provider's ledger and the row say so.
	o, run = runDesign(t, false)
	wantPass(t, judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }), "dead-lettering lost no money")
	run.ledger.Calls = append(slices.Clone(run.ledger.Calls),
		provider.Call{Op: provider.OpStatusCheck, Key: "PAY-003", Outcome: provider.Paid, TransactionID: "PRV-TX-0042"})
	wantFail(t, judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }),
		"dead-lettering lost no money", "provider calls that paid: 1")
	o, run = runDesign(t, false)
	run.ledger.Payments = slices.Clone(run.ledger.Payments)
	run.ledger.Payments[indexOfKey(run.ledger.Payments, "PAY-003", paymentKey)].Status = outbox.Paid
	wantFail(t, judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }),
		"dead-lettering lost no money", "poison payments Paid; provider calls that paid: 0")

	naive, before := runDesign(t, true)
	before.ledger.Calls = slices.DeleteFunc(slices.Clone(before.ledger.Calls), func(c provider.Call) bool { return c.Key == "PAY-003" && c.Seq > 10 })
	wantFail(t, judged(func(r *report.Report) { naive.beforeChecks(r, before, naive.metrics(before)) }),
		"poison retried with no limit", "AttemptCount 10 at the demo cap of 10")

	// A ceiling on the poison's row is an exit, whatever its status says.
	naive, before = runDesign(t, true)
	before.ledger.Messages = slices.Clone(before.ledger.Messages)
	before.ledger.Messages[indexOfKey(before.ledger.Messages, "PAY-003", messageKey)].MaxAttempts = 10
	wantFail(t, judged(func(r *report.Report) { naive.beforeChecks(r, before, naive.metrics(before)) }),
		"no dead-letter exit", "1 poison row carries a MaxAttempts ceiling")
}

func TestSession16FailsWithoutAPoisonOrWithoutTheExit(t *testing.T) {
	t.Parallel()
	// No poison: nothing fails every time, so nothing here is exercised.
	rep := scenariotest.Run(t, session16Before, "--poison-key", "none")
	for _, name := range []string{"poison retried with no limit", "no dead-letter exit", "provider calls wasted on the poison", "queue never drains"} {
		wantNotExercised(t, rep, name, "no poison key (--poison-key none)")
	}
	wantPass(t, rep, "tx ids only from provider, Paid only")
	// A transient failure instead: the naive loop retries it until it pays,
	// so the failure mode is not reproduced.
	rep = scenariotest.Run(t, session16Before, "--poison-key", "none", "--flaky-key", "PAY-003:2")
	wantFail(t, rep, "poison retried with no limit", "PAY-003 failed 2 times, then Processed at attempt 3")
	wantFail(t, rep, "queue never drains", "0 pending / 0 processing when the run ended by itself")
	// The demo cap at one attempt stops the run before any retry.
	rep = scenariotest.Run(t, session16Before, "--retry-cap", "1")
	wantNotExercised(t, rep, "poison retried with no limit", "the demo cap (--retry-cap 1) stopped the run at PAY-003's first attempt")

	rep = scenariotest.Run(t, session16After, "--dead-letter=false")
	wantFail(t, rep, "poison tried exactly MaxAttempts", "10 / 3; the dead-letter exit is off")
	rep = scenariotest.Run(t, session16After, "--poison-key", "none", "--dead-letter=false")
	wantNotExercised(t, rep, "poison tried exactly MaxAttempts", "no poison key (--poison-key none)")
}

// With the exit on, the demo cap does not apply: MaxAttempts ends the
// retries, as in the article's algorithm, at any --max-attempts.
func TestSession16AfterRunsToMaxAttempts(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session16After, "--max-attempts", "12")
	wantChecks(t, rep, map[string]string{"poison tried exactly MaxAttempts": "PASS 12 / 12"})
	wantLines(t, rep, "│ Provider status-check calls        │ 15 (10 failed)         │ 17 (12 failed)")
	if strings.Contains(rep.Body(), "demo cap: PAY-003") {
		t.Error("the demo cap stopped an AFTER run whose exit is on")
	}
}

// The backoff is judged from the provider's ledger: with no backoff every
// retry comes at the instant of the call before, and the check says so.
func TestSession16BackoffCheckReadsTheLedger(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session16After, "--base-backoff", "0s")
	wantFail(t, rep, "each retry waited its backoff (NextAttemptUtc)",
		"PAY-003 called again at 09:00:00.000Z, the instant of the call before: no backoff (--base-backoff 0s)")

	o, run := runDesign(t, false)
	judge := func() *report.Report { return judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }) }
	wantPass(t, judge(), "each retry waited its backoff (NextAttemptUtc)")
	// The second retry 1 ms early: 399 ms after the first, where 400 ms is due.
	run.ledger.Calls = slices.Clone(run.ledger.Calls)
	last := slices.IndexFunc(run.ledger.Calls, func(c provider.Call) bool { return c.Key == "PAY-003" && c.Seq == 8 })
	run.ledger.Calls[last].At = run.ledger.Calls[last].At.Add(-2 * time.Millisecond)
	wantFail(t, judge(), "each retry waited its backoff (NextAttemptUtc)",
		"PAY-003 called at 09:00:00.201Z and again at 09:00:00.600Z, sooner than its backoff of 400 ms")

	rep = scenariotest.Run(t, session16After, "--max-attempts", "1")
	wantNotExercised(t, rep, "each retry waited its backoff (NextAttemptUtc)", "MaxAttempts 1 dead-letters at the first failure")
}

// A flaky key fails N times, then pays: MaxAttempts above N lets it recover,
// N or less dead-letters a message that would have.
func TestSession16FlakyKeyRecoversOnlyWithEnoughAttempts(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session16After, "--flaky-key", "PAY-004:2")
	wantChecks(t, rep, map[string]string{
		"the transient failure recovered": "PASS PAY-004 failed 2 times, then paid at attempt 3: Processed",
	})
	rep = scenariotest.Run(t, session16After, "--flaky-key", "PAY-004:2", "--max-attempts", "2")
	wantFail(t, rep, "the transient failure recovered",
		"PAY-004 DeadLettered after 2 attempts (MaxAttempts 2), though it fails only 2 times, then pays")
	if rep.Passed() {
		t.Error("an AFTER that dead-lettered a message that would have recovered passed")
	}
	rep = scenariotest.Run(t, session16After)
	if slices.ContainsFunc(rep.Result().Checks, func(c report.Check) bool { return c.Name == "the transient failure recovered" }) {
		t.Error("the flaky check is recorded without --flaky-key")
	}
}

func TestSession13ChecksReadTheRowsOnDisk(t *testing.T) {
	t.Parallel()
	o, run := driveDesign(t, (*session13Options).drive, session13After, true)
	wantPass(t, judged(func(r *report.Report) { o.afterChecks(r, run, o.metrics(run)) }), "pending work survived the restart")
	run.rowsAtCrash = []string{"PAY-003"} // PAY-005's row never reached the disk
	wantFail(t, judged(func(r *report.Report) { o.afterChecks(r, run, o.metrics(run)) }),
		"pending work survived the restart", "2 pending payments, 1 re-check row on disk after the crash; no re-check row for PAY-005")

	rep := scenariotest.Run(t, session13After, "--observe", "1s")
	wantFail(t, rep, "every payment ends Paid or Failed",
		"2 PendingConfirmation; 4 Paid, 0 Failed; the re-checks of PAY-003, PAY-005 fall due after the watch ends (--observe 1s)")
	wantLines(t, rep, "reconciler: nothing due; next re-check due 09:00:05.200Z, after the watch")
}

func TestSession14ChecksCountHalfWrittenRequests(t *testing.T) {
	t.Parallel()
	o, run := driveDesign(t, (*session14Options).drive, session14After, true)
	judge := func() *report.Report { return judged(func(r *report.Report) { o.afterChecks(r, run, o.metrics(run)) }) }
	wantPass(t, judge(), "each crash left both rows or neither")
	// A crash that left the payment and not its message.
	run.ledger.Payments = append(slices.Clone(run.ledger.Payments), outbox.Payment{Key: "PAY-002", Status: outbox.PendingConfirmation})
	wantFail(t, judge(), "each crash left both rows or neither", "2 crashes between the writes, 1 request half-written: PAY-002")
	// Both rows is what the name allows.
	run.ledger.Messages = append(slices.Clone(run.ledger.Messages), outbox.Message{Key: "PAY-002"})
	wantPass(t, judge(), "each crash left both rows or neither")
}

func TestSession15ChecksReadTheLedgerAndTheNotifications(t *testing.T) {
	t.Parallel()
	o, run := driveDesign(t, (*session15Options).drive, session15After, false)
	judge := func() *report.Report { return judged(func(r *report.Report) { o.afterChecks(r, run, o.metrics(run)) }) }
	for _, name := range []string{"one owner at a time", "a dead worker's lease expired and another took over", "late completion refused"} {
		wantPass(t, judge(), name)
	}
	calls, notes := run.ledger.Calls, run.notifications

	// Asked about PAY-003 again a second later, well inside the 30 s lease.
	run.ledger.Calls = append(slices.Clone(calls), provider.Call{Op: provider.OpStatusCheck, Key: "PAY-003", At: calls[0].At.Add(2 * time.Second)})
	wantFail(t, judge(), "one owner at a time", "1 messages claimed while another claim was still valid")
	run.ledger.Calls = calls

	// Nobody but worker-c ever recorded PAY-001: no takeover happened.
	run.notifications = slices.DeleteFunc(slices.Clone(notes), func(n notification) bool { return n.key == "PAY-001" })
	wantFail(t, judge(), "a dead worker's lease expired and another took over", "nobody finished it after worker-c's lease ended")

	// worker-a's late completion committed after all.
	run.notifications = append(slices.Clone(notes), notification{key: "PAY-006", outcome: "Paid", by: "worker-a", at: "2026-01-16T09:00:47.000Z"})
	wantFail(t, judge(), "late completion refused", "1 committed anyway (worker-a on PAY-006 with token 1, the row's token 2)")
	run.notifications = notes

	naive, before := driveDesign(t, (*session15Options).drive, session15Before, true)
	judgeBefore := func() *report.Report {
		return judged(func(r *report.Report) { naive.beforeChecks(r, before, naive.metrics(before)) })
	}
	wantPass(t, judgeBefore(), "two workers processed the same message")
	before.notifications = slices.DeleteFunc(slices.Clone(before.notifications), func(n notification) bool { return n.by == "worker-b" })
	wantFail(t, judgeBefore(), "two workers processed the same message", "0: no message was held by two workers at once")
	// The dead worker's row moved on: nothing is stuck.
	before.ledger.Messages = slices.Clone(before.ledger.Messages)
	before.ledger.Messages[indexOfKey(before.ledger.Messages, "PAY-001", messageKey)].Status = outbox.Processed
	wantFail(t, judgeBefore(), "a dead worker's message is stuck in Processing", "PAY-001 is Processed at 09:00:47.000Z")
}

func TestSession15FailsWhenWorkerCLives(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session15Before, "--crash-point", "none")
	wantNotExercised(t, rep, "a dead worker's message is stuck in Processing", "worker-c did not die (--crash-point none)")
	wantPass(t, rep, "two workers processed the same message")
	rep = scenariotest.Run(t, session15After, "--crash-point", "none")
	wantNotExercised(t, rep, "a dead worker's lease expired and another took over", "worker-c did not die (--crash-point none)")
	wantChecks(t, rep, map[string]string{"one effect per payment": "PASS 6 notifications for 6 payments, max 1 per payment"})
	// worker-a back within its lease: nothing came late, so nothing was refused.
	rep = scenariotest.Run(t, session15After, "--lease", "1m")
	wantNotExercised(t, rep, "late completion refused", "worker-a's stall (--stall 45s) ended within its lease (--lease 1m)")
	rep = scenariotest.Run(t, session15Before, "--overlap=false")
	wantNotExercised(t, rep, "two workers processed the same message", "--overlap=false")
}

func TestSession17ChecksReadTheRecordsAndTheLedger(t *testing.T) {
	t.Parallel()
	// Three dead letters (PAY-002, PAY-003, PAY-004), so the batches and the closings have something to count.
	o, run := driveDesign(t, (*session17Options).drive, session17After, true, "--more-dead-letters", "PAY-002,PAY-004")
	judge := func() *report.Report { return judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }) }
	for _, name := range []string{"redrive authorised", "counters never reset", "bounded batches", "verified with the provider before closing"} {
		wantPass(t, judge(), name)
	}
	audit, redrives, msgs, calls := run.audit, run.redrives, run.ledger.Messages, run.ledger.Calls

	run.audit = slices.Clone(audit)
	run.audit[slices.IndexFunc(run.audit, func(e outbox.AuditEntry) bool { return e.Action == "redrive-approved" })].Actor = "mallory"
	wantFail(t, judge(), "redrive authorised", "approver mallory")
	run.audit = audit

	run.redrives = slices.Clone(redrives)
	run.redrives[0].reason = "because"
	wantFail(t, judge(), "redrive authorised", "the Redrives rows name another approver or reason")
	run.redrives = redrives

	run.ledger.Messages = slices.Clone(msgs)
	run.ledger.Messages[indexOfKey(msgs, "PAY-002", messageKey)].AttemptCount = 1 // reset, then one replay
	wantFail(t, judge(), "counters never reset", "2 of 3 rows count every attempt made")
	run.ledger.Messages = msgs

	// PAY-002 closed without the provider being asked again.
	last := -1
	for i, c := range calls {
		if c.Key == "PAY-002" {
			last = i
		}
	}
	run.ledger.Calls = slices.Delete(slices.Clone(calls), last, last+1)
	wantFail(t, judge(), "verified with the provider before closing", "3 closed, 1 of them without a matching status check")
	run.ledger.Calls = calls

	// Batch 1 took the provider's whole capacity at the redrive (two attempts,
	// two verifications): one more status check then is throttled, and the
	// ledger that records it fails the batching, whatever --batch says.
	run.throttle.AdmitOp(opAttempt, "PAY-004", run.redriveAt)
	wantFail(t, judge(), "bounded batches", "1 of 7 throttled, at most 4 in a window; 2 batches")

	blind, before := driveDesign(t, (*session17Options).drive, session17Before, false)
	judgeBefore := func() *report.Report {
		return judged(func(r *report.Report) { blind.beforeChecks(r, blind.metrics(before)) })
	}
	wantPass(t, judgeBefore(), "no record of who or why")
	before.redrives = []redriveRow{{key: "PAY-002", approver: "someone", reason: "a note"}}
	wantFail(t, judgeBefore(), "no record of who or why", "0 redrive entries in the audit log; 1 Redrives rows")
}
