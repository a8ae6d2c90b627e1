package wassal

import (
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The course sections the Days follow: the Wassal series on DEV Community
// (see the README's sources), whose Day 16 article is numbered by section.
const (
	day13Course    = "Wassal Day 13: pending work that survives a restart, and the reconciler that asks again"
	day14Course    = "Wassal Day 14: the transactional outbox, the payment and its message in one commit"
	day15Course    = "Wassal Day 15: leasing the outbox, and the fencing token that refuses a late worker"
	day17Course    = "Wassal Day 17: redriving dead letters, blind or audited and in batches"
	day18Course    = "the lab's Day 18, beyond the course text: the hosted worker renews its lease"
	shutdownCourse = "the lab's Day 18, beyond the course text: the hosted worker drains when it is stopped"
	waitCourse     = "the lab's Day 18, beyond the course text: idle workers wait without spinning"
)

func init() {
	scenarios.DeclareNext(map[string]scenarios.Next{
		session13Before: {Try: []string{"--crash-after", "PAY-004"}, Verdict: report.VerdictReproduced,
			Shows: "a later crash: the second life remembers PAY-005, not PAY-003", Course: day13Course},
		session13After: {Try: []string{"--reconciler=false"}, Verdict: report.VerdictFail,
			Shows: "the reconciler switched off: the pending work never reaches a result", Course: day13Course},
		session14Before: {Try: []string{"--crash-at", "PAY-001,PAY-006"}, Verdict: report.VerdictReproduced,
			Shows: "two crashes between the two writes: two more inconsistent pairs", Course: day14Course},
		session14After: {Try: []string{"--one-transaction=false"}, Verdict: report.VerdictFail,
			Shows: "the two writes in two transactions again: a crash between them splits the pair", Course: day14Course},
		session15Before: {Try: []string{"--batch", "3"}, Verdict: report.VerdictReproduced,
			Shows: "a bigger claim: three messages done twice", Course: day15Course},
		session15After: {Try: []string{"--fencing=false"}, Verdict: report.VerdictFail,
			Shows: "no fencing token: the late worker's completion is accepted", Course: day15Course},
		session16Before: {Try: []string{"--batch", "1"}, Verdict: report.VerdictReproduced,
			Shows:  "a claim of one: the poison at the head of the queue starves the messages behind it",
			Course: `Wassal Day 16, §2 "The BEFORE scenario: retried forever"`},
		session16After: {Try: []string{"--dead-letter=false"}, Verdict: report.VerdictFail,
			Shows:  "no exit: the poison is retried until the demo cap stops the run",
			Course: `Wassal Day 16, §4-6 "The claim, now gated by backoff", "Backoff", "Dead-letter"`},
		session17Before: {Try: []string{"--provider-fixed=false"}, Verdict: report.VerdictReproduced,
			Shows:  "the provider not fixed first: the blind reset sends the poison round its loop again, its history gone",
			Course: day17Course},
		session17After: {Try: []string{"--provider-fixed=false"}, Verdict: report.VerdictPass,
			Shows: "the cause not fixed: the redrive halts after one batch and keeps the history", Course: day17Course},
		session18Before: {Try: []string{"--fencing=false"}, Verdict: report.VerdictReproduced,
			Shows: "no fencing token: the late completion overwrites the retry's and notifies again", Course: day18Course},
		session18After: {Try: []string{"--fencing=false"}, Verdict: report.VerdictFail,
			Shows: "no fencing token: the hung worker's late completion overwrites the retry's", Course: day18Course},
		shutdownBefore: {Try: []string{"--stop-at", "30s"}, Verdict: report.VerdictReproduced,
			Shows: "a later stop: PAY-001 has finished, the two still running are stranded", Course: shutdownCourse},
		shutdownAfter: {Try: []string{"--count-release"}, Verdict: report.VerdictFail,
			Shows: "the release counts the attempt (River before PR #1290): a deploy spends attempts", Course: shutdownCourse},
		waitBefore: {Try: []string{"--poll-interval", "1s"}, Verdict: report.VerdictNotReproduced,
			Shows: "polling every second: no message waits, and the empty polls multiply", Course: waitCourse},
		waitAfter: {Try: []string{"--notify=false"}, Verdict: report.VerdictFail,
			Shows: "no wake: each message waits for a fallback poll, up to a minute", Course: waitCourse},
	})
}

// CourseClaim is the Day 16 article's claim (§4, "The claim, now gated by
// backoff"), as it prints it: --show-sql shows it beside the lab's.
const CourseClaim = `BEGIN IMMEDIATE;
  SELECT Id FROM OutboxMessages
   WHERE Status IN ('Pending','Processing')
     AND (Status='Pending' OR LockedUntilUtc < $now)          -- lease (Day 15)
     AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= $now)   -- backoff (Day 16)
   ORDER BY CreatedAtUtc LIMIT 1;
  UPDATE OutboxMessages SET Status='Processing', LockedBy=$worker,
         LockedUntilUtc=$lease, AttemptCount = AttemptCount + 1
   WHERE Id=$id AND … (same conditions) …;
COMMIT;`
