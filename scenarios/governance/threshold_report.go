package governance

import (
	"fmt"
	"strings"

	"outboxlab/core/emission"
	"outboxlab/core/report"
)

const (
	verdictThresholdHeld   = "ONE THRESHOLD, BOTH DRAIN MODES — POISON ENTRIES END AS STABLE DEAD-LETTERS"
	verdictThresholdBroken = "THE THRESHOLD POLICY DID NOT HOLD"
)

func (o *thresholdOptions) render(store, claim *driveRun, verbose bool) *report.Report {
	r := report.New(thresholdName, report.Experiment)
	layout{name: thresholdName, title: "Governance — one threshold policy, two drain modes",
		specs: o.specs(), flags: o.drain}.write(r, store, claim, verbose)
	o.checks(r, store, claim)
	return finish(r, "Checks", verdictThresholdHeld, verdictThresholdBroken, drainMetrics, claim)
}

func (o *thresholdOptions) checks(r *report.Report, store, claim *driveRun) {
	runs := []*driveRun{store, claim}
	checkSameOutcome(r, store, claim)

	seen, unstable := o.checkThresholdCount(r, runs, claim)

	dl, cleared := 0, 0
	var withNext keyList
	for _, run := range runs {
		for _, e := range run.entries {
			if e.Status != emission.DeadLettered {
				continue
			}
			dl++
			if !e.NextRetryAt.IsZero() {
				withNext.add(e.Key)
			}
			if run == claim && e.ClaimOwner == "" && e.ClaimLeaseUntil.IsZero() && e.ClaimToken > 0 {
				cleared++
			}
		}
	}
	stable := fmt.Sprintf("%s / %q", o.drain.DeadLetterReasonCode, o.drain.DeadLetterReasonMessage)
	detail := "every threshold dead-letter (both modes) records " + stable
	switch {
	case seen == 0:
		detail = "no threshold dead-letter in this run"
	case len(unstable) > 0:
		detail = fmt.Sprintf("threshold dead-letters not recording %s: %s", stable, unstable)
	}
	r.Check("threshold dead-letters carry the stable reason code and message", len(unstable) == 0 && seen > 0, detail)
	detail = "no dead-lettered row (both modes) carries NextRetryAtUtc"
	switch {
	case dl == 0:
		detail = "no row was dead-lettered in this run"
	case len(withNext) > 0:
		detail = "dead-lettered rows with a NextRetryAtUtc: " + withNext.String()
	}
	r.Check("no next retry timestamp on a dead-lettered entry", len(withNext) == 0 && dl > 0, detail)
	claimDL := countStatus(claim, emission.DeadLettered)
	fenced := 0
	for _, l := range claim.log {
		if l.To == emission.DeadLettered && l.Applied && l.ClaimToken > 0 && l.Actor == string(emission.ClaimMode)+"-drain" {
			fenced++
		}
	}
	r.Check("claim mode: dead-lettering goes through the claim-aware transition and clears ownership",
		cleared == claimDL && fenced == claimDL && claimDL > 0,
		fmt.Sprintf("%d of %d dead-letters written under the claim (token checked on the write); %d of %d rows keep no owner or lease",
			fenced, claimDL, cleared, claimDL))
	checkBothFailureKinds(r, runs)
	checkRetrySchedule(r, runs, o.drain)
	o.checkUnexpected(r, runs)
	checkProviderDeadLetter(r, runs)
	checkNoReplay(r, runs)
	checkNotDelivery(r, runs)
}

// checkUnexpected judges emitter errors and panics (the family's
// checkUnexpected). With --panics 0 no emitter call panics, so the panic
// half would hold on nothing: the errors are judged alone and the panics
// read N/A.
func (o *thresholdOptions) checkUnexpected(r *report.Report, runs []*driveRun) {
	if o.Panics > 0 {
		checkUnexpected(r, runs)
		return
	}
	probe := report.New(r.Scenario, r.Kind)
	checkUnexpected(probe, runs)
	for _, c := range probe.Result().Checks {
		c.Name = "emitter errors count as failures; the drain never crashed"
		// The family's figure names the panics too: none here, judged apart.
		c.Detail = strings.NewReplacer(" and panic (none)", "", ", "+emission.CodePanic+")", ")").Replace(c.Detail)
		r.Record(c)
	}
	r.NotExercised("emitter panics count as failures", fmt.Sprintf("--panics 0: the emitter never panicked on %s, "+
		"so no panic was there to count; --panics 1 or more", entryKey(4)))
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func countStatus(run *driveRun, st emission.Status) int {
	n := 0
	for _, e := range run.entries {
		if e.Status == st {
			n++
		}
	}
	return n
}

// checkBothFailureKinds: a failed and a retryable-failure result are both
// failed attempts. The provider's ledger says which each call returned; the
// transition log must show each one persisted as its own status (or as the
// threshold's dead-letter) with RetryCount one higher, and some entry must
// have reached the threshold with retryable-failures among its attempts.
func checkBothFailureKinds(r *report.Report, runs []*driveRun) {
	n := map[emission.ResultKind]int{}
	var mixed []string
	var broken keyList
	for i, run := range runs {
		for _, key := range run.keys() {
			kinds := map[emission.ResultKind]int{}
			for _, e := range run.emissions(key) {
				k := e.kind()
				if k != emission.ResultFailed && k != emission.ResultRetryableFailure {
					continue
				}
				n[k]++
				kinds[k]++
				if !e.logged || e.log.RetryCount != e.before+1 ||
					!(e.log.To == e.retryStatus() || e.log.To == emission.DeadLettered && e.log.ReasonCode != "") {
					broken.add(key)
				}
			}
			if row := run.entry(key); row.Status == emission.DeadLettered && row.ReasonCode == run.flags.DeadLetterReasonCode &&
				kinds[emission.ResultRetryableFailure] > 0 && i == len(runs)-1 {
				mixed = append(mixed, fmt.Sprintf("%s dead-lettered at %d/%d after %d retryable-failure and %d failed results",
					key, row.RetryCount, run.flags.MaxRetryAttempts, kinds[emission.ResultRetryableFailure], kinds[emission.ResultFailed]))
			}
		}
	}
	rf := emission.ResultRetryableFailure
	detail := "every retryable-failure persisted RetryableFailure and every failure Failed (or the threshold's " +
		"DeadLettered), RetryCount +1 each (" + modesText(runs) + ")"
	switch {
	case n[rf] == 0:
		detail = "no retryable-failure came in this run"
	case len(broken) > 0:
		detail = "a failure not persisted as its own status with RetryCount +1: " + allShown(runs, broken)
	}
	r.Check("failed and retryable-failure results both count toward the threshold",
		len(mixed) > 0 && len(broken) == 0 && n[rf] > 0,
		orNone(strings.Join(mixed, "; "), "no entry reached the threshold with a retryable-failure")+"; "+detail)
}

// checkThresholdCount judges that the failure being processed counts toward
// the threshold, and returns how many threshold dead-letters the runs hold
// and the keys whose dead-letter lacks the stable reason.
func (o *thresholdOptions) checkThresholdCount(r *report.Report, runs []*driveRun, claim *driveRun) (seen int, unstable keyList) {
	maxAttempts := o.drain.MaxRetryAttempts
	// The ledger says which calls failed; the log and the rows say what was
	// persisted for each. A threshold dead-letter is one persisted for a failed call.
	var atThreshold []string
	ok := true
	var missed keyList
	for _, run := range runs {
		for _, key := range run.keys() {
			failed := run.seeded[key].RetryCount
			for _, e := range run.emissions(key) {
				if !e.failed() {
					continue
				}
				failed++
				if !e.logged || e.log.To != emission.DeadLettered {
					if failed >= maxAttempts {
						missed.add(key)
					}
					continue
				}
				seen++
				n := run.failedCalls(key)
				ok = ok && e.log.RetryCount == maxAttempts && failed == maxAttempts && n == maxAttempts
				if e.row.ReasonCode != o.drain.DeadLetterReasonCode || e.row.ReasonMessage != o.drain.DeadLetterReasonMessage {
					unstable.add(key)
				}
				if run == claim {
					atThreshold = append(atThreshold, fmt.Sprintf("%s on failed attempt %d/%d (%s)", key, e.log.RetryCount, maxAttempts, report.Plural(n, "failed call")))
				}
			}
		}
	}
	detail := orNone(strings.Join(atThreshold, "; "), "no entry was dead-lettered at the threshold") + " in both modes"
	if len(missed) > 0 {
		detail += fmt.Sprintf("; failed attempts at or past %d/%d left their entry live: %s", maxAttempts, maxAttempts, allShown(runs, missed))
	}
	r.Check("the failure being processed counts toward the threshold", ok && seen > 0 && len(missed) == 0, detail)
	return seen, unstable
}
