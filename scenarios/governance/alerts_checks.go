package governance

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	gov "outboxlab/core/governance"
	"outboxlab/core/report"
)

// eventFields parses an alert line's key=value fields.
func eventFields(l gov.AlertLine) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Fields(l.Text) {
		if k, v, ok := strings.Cut(f, "="); ok {
			out[k] = v
		}
	}
	return out
}

// expectedFields are what a dead-letter event must say about its row.
func expectedFields(e gov.Entry, maxAttempts int) map[string]string {
	return map[string]string{
		"entry": strconv.FormatInt(e.ID, 10), "correlation": e.CorrelationID, "receipt": e.DecisionReceiptID,
		"provider": e.Provider, "region": e.Region, "tenant": e.Tenant, "workload": e.Workload,
		"reason": e.ReasonCode, "attempt": fmt.Sprintf("%d/%d", e.RetryCount, maxAttempts),
	}
}

// deadLetterEvents returns the dead-letter event lines per entry id.
func deadLetterEvents(a *gov.Alerts) map[int64][]gov.AlertLine {
	out := map[int64][]gov.AlertLine{}
	for _, l := range a.Lines() {
		if l.Name == gov.AlertDeadLettered {
			out[l.EntryID] = append(out[l.EntryID], l)
		}
	}
	return out
}

// matching counts the expected fields an event line carries with the row's value.
func matching(l gov.AlertLine, e gov.Entry, maxAttempts int) (int, int) {
	got, want := eventFields(l), expectedFields(e, maxAttempts)
	n := 0
	for k, v := range want {
		if got[k] == v {
			n++
		}
	}
	return n, len(want)
}

func (o *alertsOptions) writeEventMatch(r *report.Report, run *driveRun) {
	events := deadLetterEvents(run.alerts)
	var rows [][]string
	for _, e := range run.entries {
		if e.Status != gov.DeadLettered {
			continue
		}
		row := []string{e.Key, e.ReasonCode, fmt.Sprintf("%d/%d", e.RetryCount, o.drain.MaxRetryAttempts), strconv.Itoa(len(events[e.ID])), "—", "—"}
		if len(events[e.ID]) > 0 {
			n, of := matching(events[e.ID][0], e, o.drain.MaxRetryAttempts)
			row[4], row[5] = clock.Stamp(events[e.ID][0].At), fmt.Sprintf("%d/%d", n, of)
		}
		rows = append(rows, row)
	}
	r.Table([]string{"Entry", "Row ReasonCode", "Row attempt", "Events", "Event at", "Fields matching the row"}, rows)
}

func (o *alertsOptions) checks(r *report.Report, run *driveRun, lines []string) {
	maxAttempts := o.drain.MaxRetryAttempts
	events := deadLetterEvents(run.alerts)
	transitions, one, fieldsOK := 0, 0, 0
	for _, l := range run.log {
		if l.Applied && l.To == gov.DeadLettered {
			transitions++
		}
	}
	for _, e := range run.entries {
		if e.Status != gov.DeadLettered || len(events[e.ID]) != 1 {
			continue
		}
		one++
		if n, of := matching(events[e.ID][0], e, maxAttempts); n == of {
			fieldsOK++
		}
	}
	totalEvents := 0
	for _, ls := range events {
		totalEvents += len(ls)
	}
	r.Check("one event per dead-letter transition", transitions > 0 && one == transitions && totalEvents == transitions,
		fmt.Sprintf("%d dead-letter transitions in the log, %d events, %d entries with exactly one", transitions, totalEvents, one))
	r.Check("each event carries entry, correlation and receipt ids, reason code and attempt", one > 0 && fieldsOK == one,
		fmt.Sprintf("%d of %d events match their row on all 9 fields (entry, correlation, receipt, provider, region, tenant, workload, reason, attempt)", fieldsOK, one))
	dead := countStatus(run, gov.DeadLettered)
	r.Check("the dead-letter counter follows the dead-lettered rows", run.alerts.DeadLettered() == dead && dead > 0,
		fmt.Sprintf("governance_outbox_dead_lettered_total %d, %d rows DeadLettered", run.alerts.DeadLettered(), dead))
	o.checkRepeats(r, run)
	o.checkWarnings(r, run)
	o.checkSecrets(r, run, lines)
	checkNotDelivery(r, []*driveRun{run})
}

func (o *alertsOptions) checkRepeats(r *report.Report, run *driveRun) {
	repeats := map[string]int{}
	for _, l := range run.alerts.Lines() {
		if l.Name == gov.AlertDeadLetterRepeat {
			f := eventFields(l)
			repeats[f["reason"]+" on "+f["provider"]]++
		}
	}
	var want []string
	ok := true
	for _, c := range run.alerts.ByReason() {
		if c.Count > 1 {
			key := c.ReasonCode + " on " + c.Provider
			want = append(want, fmt.Sprintf("%s ×%d → %s", key, c.Count, report.Plural(repeats[key], "repeat alert")))
			ok = ok && repeats[key] == c.Count-1
		}
	}
	r.Check("a repeated reason code on a provider raises its own alert", ok && len(want) > 0,
		orNone(strings.Join(want, "; "), "no reason code repeated on a provider"))
}

func (o *alertsOptions) checkWarnings(r *report.Report, run *driveRun) {
	near := o.drain.MaxRetryAttempts - 1
	var parts []string
	ok, expected := true, 0
	for _, e := range run.entries {
		reached := false
		for _, ev := range run.handled(e.Key) {
			reached = reached || (ev.Transition.To == gov.Failed && ev.Transition.RetryCount == near)
		}
		warnAt, deadAt := -1, -1
		warns := 0
		for i, l := range run.alerts.Lines() {
			switch {
			case l.EntryID == e.ID && l.Name == gov.AlertThresholdNear:
				warns++
				warnAt = i
			case l.EntryID == e.ID && l.Name == gov.AlertDeadLettered:
				deadAt = i
			}
		}
		if !reached {
			ok = ok && warns == 0
			continue
		}
		expected++
		ok = ok && warns == 1 && (deadAt < 0 || warnAt < deadAt)
		then := "then " + string(e.Status)
		parts = append(parts, fmt.Sprintf("%s warned at %d/%d, %s", e.Key, near, o.drain.MaxRetryAttempts, then))
	}
	r.Check("a warning when retries reach MaxRetryAttempts-1, before any dead-letter", ok && expected > 0,
		fmt.Sprintf("%s; no warning for the %d entries that never got there", strings.Join(parts, "; "), len(run.entries)-expected))
}

func (o *alertsOptions) checkSecrets(r *report.Report, run *driveRun, lines []string) {
	stored := 0
	for _, e := range run.entries {
		if strings.Contains(e.Payload, fakeSecret) && strings.Contains(e.Payload, protectedPrompt) {
			stored++
		}
	}
	r.Check("the secret and the protected prompt are in the stored payloads", stored == len(run.entries) && stored > 0,
		fmt.Sprintf("%d of %d payloads in the database hold both", stored, len(run.entries)))
	// The body holds everything the terminal showed so far, the alert lines included.
	body, alerts := r.Body(), strings.Join(lines, "\n")
	leaks := strings.Count(body, fakeSecret) + strings.Count(body, protectedPrompt)
	inAlerts := strings.Count(alerts, fakeSecret) + strings.Count(alerts, protectedPrompt)
	r.Check("no payload, prompt or secret in alerts, output or report", leaks == 0 && inAlerts == 0,
		fmt.Sprintf("%d occurrences of the token or the prompt in the report body, %d in the %d alert lines", leaks, inAlerts, len(lines)))
}
