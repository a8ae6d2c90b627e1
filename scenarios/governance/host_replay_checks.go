package governance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/report"

	"outboxlab/core/emission"
)

// The names of the replay's checks that need a dead-letter to review.
const (
	runbookCheck    = "every replay follows the runbook: terminal record confirmed, cause classified, fix recorded"
	originalsCheck  = "the original entry, its terminal reason and its history are preserved"
	countersCheck   = "retry counters are never reset, and the record says so"
	referencesCheck = "each replay references its original and runs under claims of its own"
	batchesCheck    = "replays go out in controlled batches"
	receiptsCheck   = "an incident closes only on a provider-side receipt"
)

// noOutageDeadLetter is why a replay run without a dead-letter exercised nothing.
const noOutageDeadLetter = "the outage dead-lettered nothing (--dead-letter-on-max-retry-attempts=false), " +
	"so there was no incident to review or replay: keep it on"

func (o *replayOptions) checks(r *report.Report, run *replayRun) {
	dlTransitions := 0
	for _, l := range run.log {
		if l.Applied && l.To == emission.DeadLettered {
			dlTransitions++
		}
	}
	if dlTransitions == 0 {
		r.NotExercised("every dead-letter opened an incident", noOutageDeadLetter)
	} else {
		r.Check("every dead-letter opened an incident", len(run.incidents) == dlTransitions,
			fmt.Sprintf("%s, %s", report.Plural(dlTransitions, "dead-letter transition"), report.Plural(len(run.incidents), "incident")))
	}

	o.checkDrainNeverReplays(r, run)

	r.Check("a replay without explicit authorization is refused and writes nothing",
		errors.Is(run.unauthorized, emission.ErrReplayNotAuthorized) && run.writtenByNoAuth == 0,
		fmt.Sprintf("%s; %d rows written", errText(run.unauthorized), run.writtenByNoAuth))

	r.Check("a replay without a recorded cause and fix is refused and writes nothing",
		errors.Is(run.uncaused, emission.ErrReplayNoCause) && run.writtenByNoFix == 0,
		fmt.Sprintf("approved, no cause or fix: %s; %d rows written", errText(run.uncaused), run.writtenByNoFix))
	if dlTransitions == 0 {
		for _, name := range []string{runbookCheck, "every replay has an auditable remediation record", originalsCheck,
			countersCheck, referencesCheck, batchesCheck, receiptsCheck} {
			r.NotExercised(name, noOutageDeadLetter)
		}
		return
	}
	o.checkRunbook(r, run)

	audited := 0
	for _, m := range run.remediations {
		if m.Action == emission.ActionReplay && m.Reviewer != "" && m.Reason != "" && m.Approval != "" && m.Ticket != "" &&
			!m.AffectedFrom.IsZero() && !m.AffectedTo.IsZero() && m.ReplayEntryID > 0 {
			audited++
		}
	}
	replays := 0
	for _, e := range run.entries {
		if e.ReplayOf != 0 {
			replays++
		}
	}
	r.Check("every replay has an auditable remediation record", replays > 0 && audited == replays && len(run.remediations) == replays,
		fmt.Sprintf("%s, %s with reviewer, reason, approval, ticket, window and replay entry", report.Plural(replays, "replay"), report.Plural(audited, "record")))
	o.checkOriginals(r, run)
	o.checkBatches(r, run)
	o.checkReceipts(r, run)
}

// checkDrainNeverReplays holds the provider's ledger against the transition
// log: no call for an original after its terminal transition, none from the
// pass at review.
func (o *replayOptions) checkDrainNeverReplays(r *report.Report, run *replayRun) {
	terminalAt := map[int64]time.Time{}
	logged := map[int64]int{} // transitions up to the terminal one
	for _, l := range run.log {
		if _, ended := terminalAt[l.EntryID]; ended || !l.Applied {
			continue
		}
		logged[l.EntryID]++
		if l.To.Terminal() {
			terminalAt[l.EntryID] = l.At
		}
	}
	ids, seen := map[string]int64{}, map[string]int{}
	for _, e := range run.entries {
		ids[e.Key] = e.ID
	}
	after := 0
	for _, c := range run.calls {
		id := ids[c.Key]
		if seen[c.Key]++; seen[c.Key] > logged[id] {
			if _, ended := terminalAt[id]; ended {
				after++
			}
		}
	}
	wasDead := map[string]bool{}
	for _, b := range run.before {
		wasDead[b.Key] = b.Status.Terminal()
	}
	atReview := 0
	for _, c := range run.calls[run.reviewCalls[0]:run.reviewCalls[1]] {
		if wasDead[c.Key] {
			atReview++
		}
	}
	r.Invariant("the drain never replays a dead-letter", atReview == 0 && after == 0,
		fmt.Sprintf("a pass %s later called the provider %d times for a dead-letter; %d emissions of any entry after its terminal transition",
			run.review.Sub(run.started), atReview, after))
}

// checkOriginals: the originals keep everything, the replays reference them
// and run under claims of their own.
func (o *replayOptions) checkOriginals(r *report.Report, run *replayRun) {
	kept, counters, fresh, n := 0, 0, 0, 0
	for _, b := range run.before {
		if b.Status != emission.DeadLettered {
			continue
		}
		n++
		var now emission.Entry
		for _, e := range run.entries {
			if e.ID == b.ID {
				now = e
			}
		}
		if now.Status == emission.DeadLettered && now.ReasonCode == b.ReasonCode && now.ReasonMessage == b.ReasonMessage &&
			now.DeadLetteredAt.Equal(b.DeadLetteredAt) && now.ClaimToken == b.ClaimToken {
			kept++
		}
		rep, ok := run.replayOf(b)
		for _, m := range run.remediations {
			if m.EntryID == b.ID && now.RetryCount == b.RetryCount && m.RetryCountBefore == b.RetryCount && m.RetryCountAfter == b.RetryCount {
				counters++
			}
		}
		if ok && rep.ReplayOf == b.ID && rep.ClaimToken >= 1 && rep.CorrelationID == b.CorrelationID {
			fresh++
		}
	}
	history := 0
	for _, l := range run.log {
		for _, b := range run.before {
			if l.EntryID == b.ID && l.To == emission.DeadLettered {
				history++
			}
		}
	}
	r.Check(originalsCheck, n > 0 && kept == n && history == n,
		fmt.Sprintf("%d of %d originals still DeadLettered with the same reason, time and token; %s still in the log", kept, n, report.Plural(history, "original dead-letter transition")))
	r.Check(countersCheck, counters == n,
		fmt.Sprintf("%d of %d originals keep their RetryCount (%s), and each replay record says so (before = after); each replay starts its own count at 0",
			counters, n, report.JoinInts(retryCounts(run.before))))
	r.Check(referencesCheck, fresh == n,
		fmt.Sprintf("%d of %d replays point at their original, share its correlation id and were claimed with their own tokens", fresh, n))
}

func retryCounts(es []emission.Entry) []int {
	var out []int
	for _, e := range es {
		if e.Status == emission.DeadLettered && !slices.Contains(out, e.RetryCount) {
			out = append(out, e.RetryCount)
		}
	}
	return out
}

// checkReceipts: an incident is closed only with the provider's receipt for
// the replay; without one it stays open.
func (o *replayOptions) checkReceipts(r *report.Report, run *replayRun) {
	closed, cited, open, unconfirmed := 0, 0, 0, 0
	var stillOpen []string
	for _, b := range run.before {
		in, ok := run.incidentOf(b.ID)
		if !ok {
			continue
		}
		rep, _ := run.replayOf(b)
		receipt, has := run.emitter.Receipt(rep.Key)
		switch {
		case !in.Open:
			closed++
			if has && in.ProviderReceipt == receipt {
				cited++
			}
		default:
			open++
			if !has {
				unconfirmed++
			}
			stillOpen = append(stillOpen, fmt.Sprintf("%s (replay %s %s)", b.Key, rep.Key, rep.Status))
		}
	}
	closedText := "each citing the provider's receipt for its replay"
	if cited < closed {
		closedText = fmt.Sprintf("only %d citing the provider's receipt for its replay", cited)
	}
	openText := ""
	if unconfirmed < open {
		openText = fmt.Sprintf(" (%d of them confirmed by the provider)", open-unconfirmed)
	}
	r.Check(receiptsCheck, closed+open > 0 && cited == closed && unconfirmed == open,
		fmt.Sprintf("%d closed, %s; %d open%s: %s", closed, closedText, open, openText, orNone(strings.Join(stillOpen, ", "), "none")))
}

// checkRunbook: every replay's record names a cause of the runbook's list
// that matches what the original's row recorded (its last error code), and a
// fix; and it was written after the original's dead-letter transition was
// persisted (the log), so the runbook had a terminal record to confirm.
func (o *replayOptions) checkRunbook(r *report.Report, run *replayRun) {
	rows := map[int64]emission.Entry{}
	for _, e := range run.entries {
		rows[e.ID] = e
	}
	deadAt := map[int64]time.Time{}
	for _, l := range run.log {
		if l.Applied && l.To == emission.DeadLettered {
			if _, ok := deadAt[l.EntryID]; !ok {
				deadAt[l.EntryID] = l.At
			}
		}
	}
	n, ok := 0, 0
	var causes []string
	for _, m := range run.remediations {
		if m.Action != emission.ActionReplay {
			continue
		}
		n++
		at, persisted := deadAt[m.EntryID]
		if m.Cause.Known() && m.Cause == causeOf(rows[m.EntryID].LastErrorCode) && strings.TrimSpace(m.Fix) != "" &&
			persisted && !at.After(m.At) {
			ok++
		}
		if c := string(m.Cause); !slices.Contains(causes, c) {
			causes = append(causes, c)
		}
	}
	r.Check(runbookCheck, n > 0 && ok == n,
		fmt.Sprintf("%d of %d replay records name a cause matching the original's last error and a fix, after its dead-letter was persisted (%s)",
			ok, n, orNone(strings.Join(causes, ", "), "no cause")))
}
