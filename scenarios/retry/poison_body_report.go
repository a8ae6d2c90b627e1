package retry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func (o *bodyOptions) render(runs []*poisonRun, verbose bool) *report.Report {
	r := report.New(bodyValidation, report.Experiment)
	r.Title("Poison body validation — EXPERIMENT: the second defence, before the handler")
	r.Linef("Scenario   %s (EXPERIMENT; the course's second defence, after poison-counter)", bodyValidation)
	r.Linef("Source     %s", scenarios.Source("retry"))
	r.Linef("Queue      %s %s..%s (%s); threshold %s",
		report.Plural(o.Messages, "notification"), noteKey(1), noteKey(o.Messages), notificationType,
		report.Plural(o.Threshold, "attempt"))
	r.Linef("Bodies     %s malformed, cut short (%s); parsing it kills the process",
		strings.Join(o.malformedKeys(), ", "), notificationBody(o.Malformed[0], true))
	validation := "the body parsed at delivery, before the handler"
	if !o.CheckBody {
		validation = "but no validation (--validate=false)"
	}
	r.Line("Designs    counter only: the attempt counter at delivery, every body handed to the handler;")
	r.Linef("           validation first: the same counter, %s", validation)
	r.Linef("Processes  each lifetime a child process; restarted %s after a death, at most %s per run",
		clockText(restartDelay), report.Plural(o.MaxRestarts, "lifetime"))
	r.Linef("Databases  counter only: %s; validation first: %s (one each) %s",
		runs[0].position.db, runs[1].position.db, report.DatabaseMarker)

	scenarios.SchemaSection(r, runs[1].tables)
	for _, run := range []*poisonRun{runs[1], runs[0]} {
		r.Section(fmt.Sprintf("Timeline: %s (scenario clock, from the audit log)", run.position.name))
		audit := run.audit
		if !verbose { // the handler calls are counted below; --verbose lists them
			audit = slices.DeleteFunc(slices.Clone(audit), func(a outbox.AuditEntry) bool { return a.Action == actionHandler })
		}
		writeAuditTimeline(r, audit, verbose)
	}
	r.Figure(poisonTimeline(runs))

	metrics := []bodyMetrics{o.metrics(runs[0]), o.metrics(runs[1])}
	r.Section("The two designs (from the rows, the audit log and the processes' exits)")
	metricRows(r, "design", bodyTable, []string{runs[0].position.name, runs[1].position.name}, metrics)
	r.Line("malformed: deliveries is its AttemptCount; handler calls are audit entries written before each call")

	r.Section("Per message: validation first")
	o.writeMessages(r, runs[1])
	if verbose {
		for _, run := range runs {
			r.Section(fmt.Sprintf("Outbox ledger: %s (database %s)", run.position.name, run.position.db))
			scenarios.WriteOutboxLedger(r, run.msgs)
		}
	}

	o.checks(r, metrics)
	judgement{title: seedChecks,
		pass: "VALIDATE THE BODY FIRST — A MALFORMED MESSAGE IS ISOLATED ON ITS FIRST DELIVERY",
		fail: "THE SECOND DEFENCE DID NOT HOLD FOR THESE FLAGS"}.
		write(r, func(failed map[string]bool) []string { return o.whyFailed(failed) })
	for i, f := range metrics {
		recordMetricsOf(r, bodyTable, runs[i].position.key, f)
	}
	return r
}

func (o *bodyOptions) writeMessages(r *report.Report, run *poisonRun) {
	calls := map[int64]int{}
	for _, a := range run.audit {
		if a.Action == actionHandler {
			calls[a.MessageID]++
		}
	}
	var rows [][]string
	for _, m := range run.msgs {
		body := "well formed"
		if parseNotification(m.Payload) != nil {
			body = "malformed"
		}
		rows = append(rows, []string{m.Key, body, string(m.Status), strconv.Itoa(m.AttemptCount),
			strconv.Itoa(calls[m.ID]), strconv.Itoa(m.MaxAttempts - m.AttemptCount), report.Dash(m.LastError)})
	}
	r.Table([]string{"message", "body", "final status", "AttemptCount", "handler calls", "attempts left", "LastError"}, rows)
}

// The checks a run without validation fails, by name.
const (
	checkFirstDelivery = "validation first: each malformed message dead-lettered on its first delivery"
	checkNoHandler     = "validation first: the handler never ran on a malformed body"
	checkRetriesKept   = "validation first: no retry spent on a malformed body"
	checkNoDeath       = "validation first: no process died"
	checkCounterCost   = "counter only: each malformed body costs threshold − 1 deaths before isolation"
)

func (o *bodyOptions) checks(r *report.Report, metrics []bodyMetrics) {
	counter, validated := metrics[0], metrics[1]
	bad := len(o.Malformed)
	good := o.Messages - bad
	r.Check(checkFirstDelivery,
		report.AllEqual(validated.badRejected, true),
		fmt.Sprintf("AttemptCount %s, ClaimToken %s, status %s", report.JoinInts(validated.badDeliveries),
			report.JoinInts(validated.badTokens), report.JoinStrings(validated.badStatuses)))
	r.Check(checkNoHandler,
		report.AllEqual(validated.badHandlerCalls, 0),
		fmt.Sprintf("handler calls on it in the audit log: %s", report.JoinInts(validated.badHandlerCalls)))
	r.Check(checkRetriesKept,
		report.AllEqual(validated.badTokens, 1) && report.AllEqual(validated.badRetriesLeft, o.Threshold-1),
		fmt.Sprintf("%s of %d attempts left (MaxAttempts − AttemptCount), %s in all",
			report.JoinInts(validated.badRetriesLeft), o.Threshold, report.Plural(sumInts(validated.badTokens), "delivery")))
	r.Check(checkNoDeath,
		validated.deaths == 0 && validated.lifetimes == 1,
		fmt.Sprintf("%d deaths, %s", validated.deaths, report.Plural(validated.lifetimes, "lifetime")))
	r.Check("validation first: the well-formed messages are processed, each handled once",
		validated.processed == good && validated.handlerCalls == good && allOnce(validated.goodHandlerCallsPerKey),
		fmt.Sprintf("%d of %d processed, %s", validated.processed, good, report.Plural(validated.handlerCalls, "handler call")))
	if need := bad*(o.Threshold-1) + 1; o.MaxRestarts < need {
		r.NotExercised(checkCounterCost, fmt.Sprintf("--max-restarts %d stops the counter-only run before the counter "+
			"can isolate: isolating %s at threshold %d costs %d × (%d − 1) deaths, so it needs at least %d lifetimes; "+
			"raise --max-restarts to %d", o.MaxRestarts, report.Plural(int64(bad), "malformed body"), o.Threshold,
			bad, o.Threshold, need, need))
		return
	}
	r.Check(checkCounterCost,
		counter.deaths == bad*(o.Threshold-1) && report.AllEqual(counter.badDeliveries, o.Threshold) &&
			report.AllEqual(counter.badStatuses, outbox.DeadLettered),
		fmt.Sprintf("%d deaths = %d × (%d − 1); deliveries %s, status %s", counter.deaths, bad, o.Threshold,
			report.JoinInts(counter.badDeliveries), report.JoinStrings(counter.badStatuses)))
}

// allOnce reports whether every message was handed to the handler exactly once.
func allOnce(calls map[string]int) bool {
	for _, n := range calls {
		if n != 1 {
			return false
		}
	}
	return true
}

// whyFailed says what these flags did to the checks that failed.
func (o *bodyOptions) whyFailed(failed map[string]bool) []string {
	var why []string
	if !o.CheckBody {
		why = append(why, "--validate=false hands every body to the handler: the malformed one kills the process\n"+
			"until the counter isolates it, as in poison-counter")
		for _, name := range []string{checkFirstDelivery, checkNoHandler, checkRetriesKept, checkNoDeath} {
			delete(failed, name)
		}
	}
	if len(failed) > 0 {
		why = append(why, "no flag explains the other failures: the real run did not do what the course describes")
	}
	return why
}
