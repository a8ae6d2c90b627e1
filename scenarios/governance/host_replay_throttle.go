package governance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/provider"
	"outboxlab/core/report"
)

// codeThrottled is the provider-neutral code of an emission the provider
// refused for its capacity (HTTP 429).
const codeThrottled = "provider.throttled"

// throttledEmitter is acme-audit healthy again: the scripted emitter behind
// the provider's capacity. From the host's review on (on), an emission the
// capacity does not admit is a retryable failure, provider.throttled, and
// never reaches the scripted provider; the throttle's ledger records every
// emission, admitted or not. During the outage it answers 503 to everything,
// and the capacity is not in play.
type throttledEmitter struct {
	*emission.Scripted
	throttle *provider.Throttle
	on       bool
}

func (t *throttledEmitter) Emit(ctx context.Context, e emission.Entry, now time.Time) (emission.Result, error) {
	if t.on && !t.throttle.Admit(e.Key, now) {
		return emission.Result{Kind: emission.ResultRetryableFailure, Code: codeThrottled,
			Message: "429: acme-audit accepts " + t.throttle.Text()}, nil
	}
	return t.Scripted.Emit(ctx, e, now)
}

// checkBatches judges the batching against the provider, not against the
// batch flags: the throttle's ledger says whether any replay emission came
// faster than acme-audit's capacity (--provider-capacity per
// --provider-window). Each batch must also have been drained before the next
// (the scripted provider's ledger: a batch's calls are its own replays only).
func (o *replayOptions) checkBatches(r *report.Report, run *replayRun) {
	const name = batchesCheck
	calls := run.throttle.Calls()
	drained := true
	var sizes []string
	for _, b := range run.batches {
		emitted := map[string]bool{}
		for _, c := range run.calls[b.from:b.till] {
			emitted[c.Key] = true
		}
		for k := range emitted {
			drained = drained && slices.Contains(b.keys, k)
		}
		sizes = append(sizes, fmt.Sprint(len(b.keys)))
	}
	throttled := run.throttle.Throttled()
	busiest, at := run.throttle.Busiest()
	detail := fmt.Sprintf("acme-audit takes %s; its ledger: %d of %d replay emissions throttled; "+
		"busiest window %d, ending %s (released per batch: %s)",
		run.throttle.Text(), len(throttled), len(calls), busiest, clock.DayStamp(at), strings.Join(sizes, ", "))
	if len(throttled) > 0 {
		detail += fmt.Sprintf("; first throttled: %s at %s", throttled[0].Key, clock.DayStamp(throttled[0].At))
	}
	if !drained {
		detail += "; a batch's calls included another batch's replays"
	}
	r.Check(name, drained && len(throttled) == 0, detail)
}

// writeThrottle prints every emission acme-audit received from the review
// on, each with the admitted calls already in its window, and a line of
// totals: what the batching check reads.
func writeThrottle(r *report.Report, t *provider.Throttle) {
	calls := t.Calls()
	if len(calls) == 0 {
		r.Line("(no emission reached acme-audit after the review)")
		return
	}
	rows := make([][]string, 0, len(calls))
	for _, c := range calls {
		answer := "admitted"
		if c.Throttled {
			answer = "THROTTLED (429)"
		}
		rows = append(rows, []string{fmt.Sprint(c.Seq), clock.DayStamp(c.At), c.Key, fmt.Sprint(c.InWindow), answer})
	}
	r.Table([]string{"#", "AtUtc", "Entry", "Already in window", "Answer"}, rows)
	busiest, at := t.Busiest()
	r.Linef("%s, %d throttled; capacity %s; busiest window %d, ending %s",
		report.Plural(len(calls), "replay emission"), len(t.Throttled()), t.Text(), busiest, clock.DayStamp(at))
}
