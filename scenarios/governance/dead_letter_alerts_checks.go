package governance

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// eventFields parses an alert line's key=value fields, the way a log reader
// would: a value is a bare word, or a quoted string (Go syntax) that may hold
// spaces. A word without "=" (the alert's name) is skipped.
func eventFields(l emission.AlertLine) map[string]string {
	out := map[string]string{}
	for s := l.Text; s != ""; {
		s = strings.TrimLeft(s, " ")
		i := strings.IndexAny(s, " =")
		switch {
		case i < 0:
			return out
		case s[i] == ' ':
			s = s[i+1:]
			continue
		}
		key := s[:i]
		s = s[i+1:]
		if strings.HasPrefix(s, `"`) {
			if q, err := strconv.QuotedPrefix(s); err == nil {
				out[key], _ = strconv.Unquote(q)
				s = s[len(q):]
				continue
			}
		}
		word, rest, _ := strings.Cut(s, " ")
		out[key], s = word, rest
	}
	return out
}

// expectedFields are what a dead-letter event must say about its row.
func expectedFields(e emission.Entry, maxAttempts int) map[string]string {
	return map[string]string{
		"entry": strconv.FormatInt(e.ID, 10), "correlation": e.CorrelationID, "receipt": e.DecisionReceiptID,
		"provider": e.Provider, "region": e.Region, "tenant": e.Tenant, "workload": e.Workload,
		"reason": e.ReasonCode, "attempt": fmt.Sprintf("%d/%d", e.RetryCount, maxAttempts),
	}
}

// deadLetterEvents returns the dead-letter event lines per entry id.
func deadLetterEvents(a *emission.Alerts) map[int64][]emission.AlertLine {
	out := map[int64][]emission.AlertLine{}
	for _, l := range a.Lines() {
		if l.Name == emission.AlertDeadLettered {
			out[l.EntryID] = append(out[l.EntryID], l)
		}
	}
	return out
}

// matching counts the expected fields an event line carries with the row's value.
func matching(l emission.AlertLine, e emission.Entry, maxAttempts int) (int, int) {
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
		if e.Status != emission.DeadLettered {
			continue
		}
		row := []string{e.Key, e.ReasonCode, fmt.Sprintf("%d/%d", e.RetryCount, o.drain.MaxRetryAttempts), strconv.Itoa(len(events[e.ID])), "—", "—"}
		if len(events[e.ID]) > 0 {
			n, of := matching(events[e.ID][0], e, o.drain.MaxRetryAttempts)
			row[4], row[5] = clock.DayStamp(events[e.ID][0].At), fmt.Sprintf("%d/%d", n, of)
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
		if l.Applied && l.To == emission.DeadLettered {
			transitions++
		}
	}
	for _, e := range run.entries {
		if e.Status != emission.DeadLettered || len(events[e.ID]) != 1 {
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
		fmt.Sprintf("%s in the log, %s, %s with exactly one", report.Plural(transitions, "dead-letter transition"), report.Plural(totalEvents, "event"), report.Plural(one, "entry")))
	r.Check("each event carries entry, correlation and receipt ids, reason code and attempt", one > 0 && fieldsOK == one,
		fmt.Sprintf("%d of %d events match their row on all 9 fields (entry, correlation, receipt, provider, region, tenant, workload, reason, attempt)", fieldsOK, one))
	dead := countStatus(run, emission.DeadLettered)
	r.Check("the dead-letter counter follows the dead-lettered rows", run.alerts.DeadLettered() == dead && dead > 0,
		fmt.Sprintf("governance_outbox_dead_lettered_total %d, %s DeadLettered", run.alerts.DeadLettered(), report.Plural(dead, "row")))
	o.checkRepeats(r, run)
	o.checkWarnings(r, run)
	o.checkSecrets(r, run, lines)
	checkNotDelivery(r, []*driveRun{run})
}

// checkRepeats: every reason code that dead-lettered more than one row of a
// provider (counted in the rows, not by the alert sink) raised one repeat
// alert per row after the first.
func (o *alertsOptions) checkRepeats(r *report.Report, run *driveRun) {
	repeats := map[[2]string]int{}
	for _, l := range run.alerts.Lines() {
		if l.Name == emission.AlertDeadLetterRepeat {
			f := eventFields(l)
			repeats[[2]string{f["reason"], f["provider"]}]++
		}
	}
	rows := map[[2]string]int{}
	for _, e := range run.entries {
		if e.Status == emission.DeadLettered {
			rows[[2]string{e.ReasonCode, e.Provider}]++
		}
	}
	var want []string
	ok := true
	for _, k := range slices.SortedFunc(maps.Keys(rows), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	}) {
		if n := rows[k]; n > 1 {
			want = append(want, fmt.Sprintf("%s on %s ×%d → %s", k[0], k[1], n, report.Plural(repeats[k], "repeat alert")))
			ok = ok && repeats[k] == n-1
		}
	}
	const name = "a repeated reason code on a provider raises its own alert"
	if len(want) == 0 {
		r.NotExercised(name, "no reason code dead-lettered two rows of one provider: "+
			"keep --dead-letter-on-max-retry-attempts on, so the threshold's code repeats")
		return
	}
	r.Check(name, ok, strings.Join(want, "; "))
}

// checkWarnings: an entry whose persisted transitions reached
// MaxRetryAttempts-1 failures as Failed was warned once, before any
// dead-letter alert; no other entry was.
func (o *alertsOptions) checkWarnings(r *report.Report, run *driveRun) {
	const name = "a warning when retries reach MaxRetryAttempts-1, before any dead-letter"
	near := o.drain.MaxRetryAttempts - 1
	if near < 1 {
		// No entry can fail MaxRetryAttempts-1 = 0 times and be warned: the
		// warning cannot exist, so the run does not judge it.
		r.NotExercised(name, fmt.Sprintf("MaxRetryAttempts %d: the first failure is the threshold, "+
			"so no entry can be warned before its dead-letter: --max-retry-attempts 2 or more", o.drain.MaxRetryAttempts))
		return
	}
	var parts []string
	ok, expected := true, 0
	lines := run.alerts.Lines()
	for _, e := range run.entries {
		reached := false
		for _, l := range run.log {
			reached = reached || (l.EntryID == e.ID && l.Applied && l.To.FailedAttempt() && l.RetryCount == near)
		}
		warnAt, deadAt := -1, -1
		warns := 0
		for i, l := range lines {
			switch {
			case l.EntryID == e.ID && l.Name == emission.AlertThresholdNear:
				warns++
				warnAt = i
			case l.EntryID == e.ID && l.Name == emission.AlertDeadLettered:
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
	if expected == 0 {
		r.NotExercised(name, fmt.Sprintf("no entry reached %d failures, so none was due a warning: "+
			"a lower --max-retry-attempts", near))
		return
	}
	r.Check(name, ok,
		fmt.Sprintf("%s; no warning for the %d entries that never got there", orNone(strings.Join(parts, "; "), "no entry got there"), len(run.entries)-expected))
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
	body := r.Body()
	leaks := strings.Count(body, fakeSecret) + strings.Count(body, protectedPrompt)
	keys := map[int64]string{}
	for _, e := range run.entries {
		keys[e.ID] = e.Key
	}
	// The alert lines that carry the token or the prompt, named as the alert table shows them.
	var carriers keyList
	every := len(lines) > 0
	for i, l := range run.alerts.Lines() {
		if i < len(lines) && (strings.Contains(lines[i], fakeSecret) || strings.Contains(lines[i], protectedPrompt)) {
			carriers.add(strings.TrimPrefix(l.Name, "governance_outbox.") + " " + keys[l.EntryID])
		} else {
			every = false
		}
	}
	detail := "neither the token nor the prompt occurs in the report body"
	if leaks > 0 {
		detail = "the token or the prompt occurs in the report body"
	}
	switch {
	case len(carriers) == 0:
		detail += "; no alert line carries one"
	case every:
		detail += "; every alert line carries one: " + carriers.String()
	default:
		detail += "; alert lines that carry one: " + carriers.String()
	}
	r.Check("no payload, prompt or secret in alerts, output or report", leaks == 0 && len(carriers) == 0, detail)
}
