package governance

import (
	"fmt"
	"strconv"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func (o *replayOptions) render(run *replayRun) *report.Report {
	r := report.New(replayName, report.Experiment)
	r.Title("Governance — dead-letters are incidents: the host replays, authorized and audited")
	r.Linef("Scenario  %s (%s)", replayName, report.Experiment)
	r.Linef("Entries   %d governance entries %s..%s; the provider is down for all of them (provider.unavailable)", o.Entries, entryKey(1), entryKey(o.Entries))
	for _, l := range o.drain.describe() {
		r.Line(l)
	}
	r.Linef("Drain     claim drain, claims for %s; after every pass the host opens an incident per new dead-letter", emission.DefaultLease)
	rejected := "the provider accepts every replay"
	switch {
	case o.RejectedKey != "":
		rejected = o.RejectedKey + "'s replay is rejected by the provider again (provider.schema_rejected)"
	case o.unseededRejected != "":
		rejected += fmt.Sprintf(" (%s, the default --rejected-key, is not among the %s)", o.unseededRejected, report.Plural(o.Entries, "entry"))
	}
	r.Linef("Review    %s after the start the host reviews; replays go out %d at a time, %s apart; %s", o.ReviewAfter, o.ReplayBatch, o.Interval, rejected)
	if late := run.started.Add(o.ReviewAfter); run.review.After(late) {
		r.Linef("          the outage drain ran until %s, past %s: the host reviews when it ends", clock.DayStamp(run.review), clock.DayStamp(late))
	}
	if o.CloseWithoutReceipt {
		r.Line("Host      CARELESS (--close-without-receipt): closes every incident citing its ticket, never asks the provider")
	}
	if !o.drain.DeadLetterOnMaxRetryAttempts {
		r.Linef("Demo cap  with dead-lettering off, the outage drain is stopped if a live entry reaches %d failures", o.drain.RetryCap)
	}
	writeStart(r, run.started)
	scenarios.SchemaSection(r, run.tables)
	writeTimeline(r, "Timeline (scenario clock)", run.lines)
	r.Section("Originals and their replays")
	o.writePairs(r, run)
	r.Section("Remediation log (GovernanceRemediations)")
	writeRemediations(r, run.remediations, run.entries)
	r.Section("Incidents (GovernanceIncidents)")
	writeIncidents(r, run)
	o.checks(r, run)
	return finish(r, "Checks", "NO AUTOMATIC REPLAY; EVERY REPLAY AUTHORIZED, AUDITED, BATCHED AND CONFIRMED ✅",
		"REPLAY GOVERNANCE DID NOT HOLD — SEE THE FAILED CHECKS ❌", replayFigures, run)
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
	for _, orig := range run.entries {
		if orig.ReplayOf != 0 {
			continue
		}
		rep, _ := run.replayOf(orig)
		in, _ := run.incidentOf(orig.ID)
		state := "open"
		if !in.Open {
			state = "closed, receipt " + in.ProviderReceipt
		}
		rows = append(rows, []string{orig.Key, fmt.Sprintf("%s (%s), RetryCount %d, token %d", orig.Status, orig.ReasonCode, orig.RetryCount, orig.ClaimToken),
			report.Dash(rep.Key), fmt.Sprintf("%s, RetryCount %d, token %d", rep.Status, rep.RetryCount, rep.ClaimToken), report.Dash(rep.ReasonCode),
			fmt.Sprintf("#%d %s", in.ID, state)})
	}
	r.Table([]string{"Original", "Original after the replay", "Replay", "Replay outcome", "Replay reason", "Original's incident"}, rows)
}

func writeIncidents(r *report.Report, run *replayRun) {
	keys := map[int64]string{}
	for _, e := range run.entries {
		keys[e.ID] = e.Key
	}
	var rows [][]string
	for _, in := range run.incidents {
		status := "Open"
		if !in.Open {
			status = "Closed"
		}
		rows = append(rows, []string{strconv.FormatInt(in.ID, 10), keys[in.EntryID], clock.DayStamp(in.OpenedAt), in.ReasonCode, status,
			stampOrDash(in.ClosedAt), report.Dash(in.ClosedBy), report.Dash(in.ProviderReceipt)})
	}
	r.Table([]string{"#", "Entry", "OpenedAtUtc", "ReasonCode", "Status", "ClosedAtUtc", "ClosedBy", "ProviderReceipt"}, rows)
}

// replayFigures are what the host's replay run is judged by, read from its
// incidents, remediation log and the provider's ledger.
var replayFigures = []scenarios.Figure[*replayRun]{
	{Key: "incidents_open", Value: func(r *replayRun) any { return r.incidentsOpen(true) }},
	{Key: "incidents_closed", Value: func(r *replayRun) any { return r.incidentsOpen(false) }},
	{Key: "replays", Value: func(r *replayRun) any { return len(r.remediations) }},
	{Key: "replay_batches", Value: func(r *replayRun) any { return len(r.batches) }},
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
