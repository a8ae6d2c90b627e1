package retry

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

func (o *stormOptions) writeStormMetrics(r *report.Report, before, after *stormRun) {
	b, a := o.figures(before), o.figures(after)
	probes := func(run *stormRun, f stormFigures) string {
		if !run.breaker {
			return "— (no breaker)"
		}
		return fmt.Sprintf("%d / %d (%d)", f.breaker.opens, f.breaker.probes, f.breaker.failedProbes)
	}
	rows := [][]string{
		{"Gateway calls during the outage", callsText(b.calls[1], b.failed[1]), callsText(a.calls[1], a.failed[1])},
		{"Breaker opened / probes (failed)", probes(before, b), probes(after, a)},
		{"Messages with a failed send", strconv.Itoa(b.affected), strconv.Itoa(a.affected)},
		{"Processed", fmt.Sprintf("%d / %d", b.processed, o.Messages), fmt.Sprintf("%d / %d", a.processed, o.Messages)},
		{"Dead-lettered because of the outage", strconv.Itoa(b.dead), strconv.Itoa(a.dead)},
		{"Pending / Processing at end", strconv.Itoa(b.left), strconv.Itoa(a.left)},
		{"Last notification sent at", report.StampOrDash(b.lastProcessed), report.StampOrDash(a.lastProcessed)},
		{"Run ended at", clock.Stamp(before.ended), clock.Stamp(after.ended)},
	}
	r.Table([]string{"Metric (real run)", "BEFORE (no breaker)", "AFTER (circuit breaker)"}, rows)
}

// stormChecks judge the gateway's ledger (calls per phase, and the breaker
// rule replayed over it) and the outbox rows; the AFTER side also compares
// its ledger with the BEFORE design's, driven on the same seed.
func (o *stormOptions) stormChecks(r *report.Report, b, a stormFigures) {
	if !o.breaker {
		retries := b.calls[1] - b.affected
		r.Check("the down gateway takes the whole retry load", retries > 0,
			fmt.Sprintf("%d calls during the outage for %d messages, %d of them retries", b.calls[1], b.affected, retries))
		r.Check("messages are dead-lettered because of the outage", b.dead > 0,
			fmt.Sprintf("%d dead-lettered; the gateway was only down", b.dead))
		r.Check("the outage costs notifications that were never wrong", b.processed < o.Messages,
			fmt.Sprintf("%d of %d processed", b.processed, o.Messages))
		return
	}
	br := a.breaker
	detail := fmt.Sprintf("%d calls = %d that opened it + %s, none while it was open",
		a.calls[1], br.tripping, report.Plural(int64(br.outageProbes), "failed probe"))
	if br.whileOpen > 0 || br.opens == 0 {
		detail = fmt.Sprintf("%d calls: %d that opened it, %s, %d while it was open by the rule",
			a.calls[1], br.tripping, report.Plural(int64(br.outageProbes), "failed probe"), br.whileOpen)
	}
	r.Check("during the outage the consumer only trips the breaker and probes", br.opens > 0 && br.whileOpen == 0, detail)
	r.Check("gateway calls during the outage fall sharply", a.calls[1] < b.calls[1],
		fmt.Sprintf("%d vs %d without a breaker", a.calls[1], b.calls[1]))
	r.Check("nothing is dead-lettered because of the outage", a.dead == 0,
		fmt.Sprintf("%d dead-lettered", a.dead))
	r.Check("every message is processed once the gateway recovers", a.processed == o.Messages && a.left == 0,
		fmt.Sprintf("%d of %d processed, %d left", a.processed, o.Messages, a.left))
	closing := "no probe closed it"
	if br.closedRecovery {
		closing = "the last closed it at " + clock.Stamp(br.closedAt)
	}
	r.Check("a probe after recovery closes the breaker", br.closedRecovery,
		fmt.Sprintf("%s; %s (gateway back at %s)", report.Plural(int64(br.probes), "probe"), closing, clock.Stamp(o.phases()[2].from)))
}

func (o *stormOptions) recordStormMetrics(r *report.Report, run *stormRun) {
	f := o.figures(run)
	for i, key := range []string{"before_outage", "during_outage", "after_recovery"} {
		r.Metric("calls_"+key, f.calls[i])
		r.Metric("failed_calls_"+key, f.failed[i])
	}
	r.Metric("processed", f.processed)
	r.Metric("dead_lettered", f.dead)
	r.Metric("left", f.left)
	if !run.breaker {
		f.breaker = breakerReplay{} // no breaker: nothing opened, nothing probed
	}
	r.Metric("breaker_opens", f.breaker.opens)
	r.Metric("probes", f.breaker.probes)
	r.Metric("failed_probes", f.breaker.failedProbes)
	r.Metric("scenario_end", clock.ISO(run.ended))
}

// retrySpan is how long a message can go on retrying: the sum of the
// backoffs after its first --max-attempts − 1 failures.
func (o *stormOptions) retrySpan() time.Duration {
	var span time.Duration
	d := o.BaseBackoff
	for n := 1; n < o.MaxAttempts; n++ {
		span += min(d, o.MaxBackoff)
		d = min(2*d, o.MaxBackoff) // never beyond the cap: no overflow
	}
	return span
}

// whyStormMissed says what these flags did to the BEFORE checks that failed.
func (o *stormOptions) whyStormMissed(r *report.Report, b stormFigures) []string {
	failed := failedChecks(r)
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case b.calls[1] == 0:
		why = append(why, fmt.Sprintf("the gateway went down %s after the start, when the consumer had sent every message:\n"+
			"no call reached it while it was down", clockText(o.OutageStart)))
	case o.MaxAttempts == 1 && failed["the down gateway takes the whole retry load"]:
		why = append(why, "with --max-attempts 1 a failed message is dead-lettered at once: no retry reaches the gateway")
		delete(failed, "the down gateway takes the whole retry load")
		fallthrough
	default:
		if b.dead == 0 {
			why = append(why, fmt.Sprintf("%d attempts retry for %s (backoff %s doubling, capped at %s), longer than the %s outage:\n"+
				"no message ran out of attempts while the gateway was down, so none was dead-lettered",
				o.MaxAttempts, secondsText(o.retrySpan()), clockText(o.BaseBackoff), clockText(o.MaxBackoff), clockText(o.Outage)))
		}
	}
	if len(why) == 0 {
		why = append(why, unexplained)
	}
	return why
}

// unexplained is the reason given for a failure no flag accounts for.
const unexplained = "no flag explains this failure: the run did not do what the design says"

// whyBreakerFailed says what these flags did to the AFTER checks that failed.
func (o *stormOptions) whyBreakerFailed(r *report.Report, after *stormRun, a stormFigures) []string {
	failed := failedChecks(r)
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case !after.breaker:
		return []string{"--breaker=false switches the breaker off: the consumer retried into the down gateway\n" +
			"like the BEFORE design, each message on its own schedule"}
	case a.breaker.opens == 0:
		why = append(why, fmt.Sprintf("the outage produced %s, fewer than --failures-to-open %d: the breaker never opened",
			report.Plural(int64(a.calls[1]), "failed call"), o.FailuresToOpen))
	}
	if a.dead > 0 {
		lines := []string{"a probe is a real message, and each failed probe spends an attempt of the message it carries:"}
		for _, m := range after.msgs {
			if m.Status == outbox.DeadLettered && len(lines) <= 3 {
				lines = append(lines, fmt.Sprintf("%s failed its %d attempts, %d of them as probes (one every %s of the %s outage)",
					m.Key, m.AttemptCount, a.breaker.failedProbesOf[m.Key], clockText(o.Cooldown), clockText(o.Outage)))
			}
		}
		why = append(why, strings.Join(lines, "\n"))
	}
	if len(why) == 0 {
		why = append(why, unexplained)
	}
	return why
}
