package governance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func (o *replayOptions) render(run *replayRun, verbose bool) *report.Report {
	r := report.New(replayName, report.Experiment)
	r.Title("Governance — dead-letters are incidents: the host replays, authorized and audited")
	r.Linef("Scenario  %s (%s)", replayName, report.Experiment)
	writeSource(r)
	r.Linef("Entries   %d governance entries %s..%s; the provider is down for all of them", o.Entries, entryKey(1), entryKey(o.Entries))
	for _, l := range o.drain.describe() {
		r.Line(l)
	}
	r.Linef("Drain     claim drain, claims for %s; after each pass the host opens an incident per dead-letter", emission.DefaultLease)
	rejected := "the provider accepts every replay"
	switch {
	case o.RejectedKey != "":
		rejected = o.RejectedKey + "'s replay is rejected by the provider again (provider.schema_rejected)"
	case o.unseededRejected != "":
		rejected += fmt.Sprintf(" (%s, the default --rejected-key,\n          is not among the %s)", o.unseededRejected, report.Plural(o.Entries, "entry"))
	}
	r.Linef("Review    %s after the start; replays go out %d at a time, %s apart;", o.ReviewAfter, o.ReplayBatch, o.Interval)
	for _, l := range strings.Split(rejected, "\n") {
		r.Linef("          %s", strings.TrimSpace(l))
	}
	r.Linef("Provider  healthy again at the review, acme-audit accepts %s; more are throttled", run.throttle.Text())
	r.Line("          (provider.throttled, a retryable failure)")
	r.Line("Runbook   confirm the store and the terminal record, classify the cause, record the fix, replay")
	if late := run.started.Add(o.ReviewAfter); run.review.After(late) {
		r.Linef("          the outage drain ran until %s, past %s: the host reviews when it ends", clock.DayStamp(run.review), clock.DayStamp(late))
	}
	if o.CloseWithoutReceipt {
		r.Line("Host      CARELESS (--close-without-receipt): closes incidents citing the ticket, asks no provider")
	}
	if !o.drain.DeadLetterOnMaxRetryAttempts {
		r.Linef("Demo cap  with dead-lettering off, the outage drain is stopped if a live entry reaches %d failures", o.drain.RetryCap)
	}
	writeStart(r, run.started)
	scenarios.SchemaSection(r, run.tables)
	legend := timelineLegend(o.drain.MaxRetryAttempts, hadUnexpected(run.events), false)
	if run.hidden > 0 {
		legend = append(legend, fmt.Sprintf("(the outage hit %s..%s alike: %s of the others left out; --verbose prints them)",
			entryKey(1), entryKey(o.Entries), report.Plural(run.hidden, "line")))
	}
	writeTimeline(r, "Timeline (scenario clock)", run.lines, legend...)
	timelineFigure(r, "timeline", "Emissions: the outage, then the replays", run.events, run.started, run.ended)
	r.Section("Originals, their replays and the audit records (GovernanceRemediations)")
	o.writePairs(r, run)
	if verbose {
		r.Section("Remediation log (GovernanceRemediations)")
		writeRemediations(r, run.remediations, run.entries)
	}
	r.Section("Incidents (GovernanceIncidents)")
	writeIncidents(r, run)
	r.Section("The provider's capacity (its throttle ledger)")
	writeThrottle(r, run.throttle)
	o.checks(r, run)
	return finish(r, "Checks", "NO AUTOMATIC REPLAY; EVERY REPLAY AUTHORIZED, AUDITED, BATCHED AND CONFIRMED",
		"REPLAY GOVERNANCE DID NOT HOLD", replayMetrics, run)
}

// replayOf returns the replay entry of an original, if any.
func (r *replayRun) replayOf(orig emission.Entry) (emission.Entry, bool) {
	for _, e := range r.entries {
		if e.ReplayOf == orig.ID {
			return e, true
		}
	}
	return emission.Entry{}, false
}

func (r *replayRun) incidentOf(id int64) (emission.Incident, bool) {
	for _, in := range r.incidents {
		if in.EntryID == id {
			return in, true
		}
	}
	return emission.Incident{}, false
}

func (o *replayOptions) writePairs(r *report.Report, run *replayRun) {
	var rows [][]string
	var shared []string
	for _, orig := range run.entries {
		if orig.ReplayOf != 0 {
			continue
		}
		rep, _ := run.replayOf(orig)
		in, _ := run.incidentOf(orig.ID)
		state := "open"
		if !in.Open {
			state = "closed " + in.ProviderReceipt
		}
		audit := report.Empty
		for _, m := range run.remediations {
			if m.EntryID != orig.ID {
				continue
			}
			audit = fmt.Sprintf("#%d, %d → %d", m.ID, m.RetryCountBefore, m.RetryCountAfter)
			for _, l := range remediationShared(m) {
				if !slices.Contains(shared, l) {
					shared = append(shared, l)
				}
			}
		}
		rows = append(rows, []string{orig.Key, fmt.Sprintf("%s, %d", orig.Status, orig.RetryCount), audit,
			fmt.Sprintf("%s (%s, %d)", report.Dash(rep.Key), rep.Status, rep.ClaimToken), fmt.Sprintf("#%d %s", in.ID, state)})
	}
	r.Table([]string{"Original", "Now, RetryCount", "Audit record", "Replay (status, token)", "Incident"}, rows)
	r.Line("(Audit record: its # and the original's RetryCount before → after the replay)")
	for _, l := range shared {
		r.Line(wrapFields(l, "         "))
	}
}

func writeIncidents(r *report.Report, run *replayRun) {
	keys := map[int64]string{}
	for _, e := range run.entries {
		keys[e.ID] = e.Key
	}
	var rows [][]string
	reasons := map[string][]string{}
	var order []string
	for _, in := range run.incidents {
		status := "Open"
		if !in.Open {
			status = "Closed"
		}
		rows = append(rows, []string{strconv.FormatInt(in.ID, 10), keys[in.EntryID], clock.DayStamp(in.OpenedAt), status,
			stampOrDash(in.ClosedAt), report.Dash(in.ProviderReceipt)})
		if len(reasons[in.ReasonCode]) == 0 {
			order = append(order, in.ReasonCode)
		}
		reasons[in.ReasonCode] = append(reasons[in.ReasonCode], "#"+strconv.FormatInt(in.ID, 10))
	}
	r.Table([]string{"#", "Entry", "OpenedAtUtc", "Status", "ClosedAtUtc", "ProviderReceipt"}, rows)
	closers := map[string]bool{}
	for _, in := range run.incidents {
		if in.ClosedBy != "" && !closers[in.ClosedBy] {
			closers[in.ClosedBy] = true
			r.Linef("ClosedBy %s", in.ClosedBy)
		}
	}
	for _, code := range order {
		r.Linef("ReasonCode %s: %s", code, strings.Join(reasons[code], ", "))
	}
}

// replayMetrics are what the host's replay run is judged by, read from its
// incidents, remediation log and the provider's ledger.
var replayMetrics = []scenarios.Metric[*replayRun]{
	{Key: "incidents_open", Value: func(r *replayRun) any { return r.incidentsOpen(true) }},
	{Key: "incidents_closed", Value: func(r *replayRun) any { return r.incidentsOpen(false) }},
	{Key: "replays", Value: func(r *replayRun) any { return len(r.remediations) }},
	{Key: "replay_batches", Value: func(r *replayRun) any { return len(r.batches) }},
	{Key: "replay_emissions_throttled", Value: func(r *replayRun) any { return len(r.throttle.Throttled()) }},
	{Key: "later_selected", Value: func(r *replayRun) any { return r.reviewCalls[1] - r.reviewCalls[0] }},
	{Key: "demo_capped", Value: func(r *replayRun) any { return r.capped }},
	{Key: "unauthorized_refused", Value: func(r *replayRun) any { return r.unauthorized != nil }},
	{Key: "scenario_end", Value: func(r *replayRun) any { return clock.ISO(r.ended) }},
}

// incidentsOpen counts the incidents that are open (or, with false, closed).
func (r *replayRun) incidentsOpen(open bool) int {
	n := 0
	for _, in := range r.incidents {
		if in.Open == open {
			n++
		}
	}
	return n
}
