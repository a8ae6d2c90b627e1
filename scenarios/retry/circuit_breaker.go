package retry

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const stormBreaker = "circuit-breaker"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    stormBreaker,
		Family:  "retry",
		Kind:    report.After,
		Pair:    stormNoBreaker,
		Summary: "A consumer-wide circuit breaker: after K failures the consumer stops, probes after a cooldown, and resumes on recovery",
		Long: `The same outbox, the same outage, the same per-message policy, with a circuit
breaker in front of the consumer: closed; open after --failures-to-open
consecutive failures, when the consumer stops claiming altogether; half-open
after --cooldown, when one message goes through as a probe; closed again when
a probe succeeds. Gateway calls during the outage fall to the ones that tripped
the breaker and the probes, no message spends its retry budget on the outage,
and every message is processed once the gateway is back.

A probe is a real message, so each failed probe spends that message's retry
budget: a cooldown too short for the outage (--cooldown 5s), or an outage too
long for the budget (--outage 3m), dead-letters the probe message, and the
checks say so.`,
		Example: `  outboxlab circuit-breaker
  outboxlab circuit-breaker --failures-to-open 3 --cooldown 30s
  outboxlab circuit-breaker --cooldown 5s     # probes too often: a probe message dead-lettered`,
		// The breaker switched off: the consumer retries into the down gateway.
		FailsWith: []string{"--breaker=false"},
		// The gateway goes down after every message was sent: no outage for the breaker.
		NotExercisedWith: []string{"--outage-start", "10m"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindStorm(fs, true) },
	})
}

// The AFTER design's checks that need an outage, by name.
const (
	checkBreakerOnlyTrips = "during the outage the consumer only trips the breaker and probes"
	checkBreakerCallsFall = "gateway calls during the outage fall sharply"
	checkBreakerCloses    = "a probe after recovery closes the breaker"
)

// breakerSide judges the AFTER design by the gateway's ledger (calls per
// phase, and the breaker rule replayed over it) and the outbox rows, and
// compares its ledger with the BEFORE design's, driven on the same seed.
func (o *stormOptions) breakerSide() pairSide[*stormRun] {
	return pairSide[*stormRun]{
		pass: verdictBreakerHeld, fail: verdictBreakerBroken,
		check: func(r *report.Report, before, after *stormRun) { o.breakerChecks(r, before.read, after.read) },
		why:   func(failed map[string]bool, _, after *stormRun) []string { return o.whyBreakerFailed(failed, after) },
	}
}

func (o *stormOptions) breakerChecks(r *report.Report, b, a stormMetrics) {
	br := a.breaker
	exercised := a.calls[1] > 0
	if !exercised {
		why := o.outageMissed()
		r.NotExercised(checkBreakerOnlyTrips, why)
		r.NotExercised(checkBreakerCallsFall, why)
	}
	detail := fmt.Sprintf("%s = %d that opened it + %s, none while it was open",
		report.Plural(a.calls[1], "call"), br.tripping, report.Plural(br.outageProbes, "failed probe"))
	if br.whileOpen > 0 || br.opens == 0 {
		detail = fmt.Sprintf("%s: %d that opened it, %s, the rest while it was open by the rule",
			report.Plural(a.calls[1], "call"), br.tripping, report.Plural(br.outageProbes, "failed probe"))
	}
	if exercised {
		r.Check(checkBreakerOnlyTrips, br.opens > 0 && br.whileOpen == 0, detail)
		r.Check(checkBreakerCallsFall, a.calls[1] < b.calls[1],
			fmt.Sprintf("%d vs %d without a breaker", a.calls[1], b.calls[1]))
	}
	r.Check("nothing is dead-lettered because of the outage", a.dead == 0,
		fmt.Sprintf("%d dead-lettered", a.dead))
	r.Check("every message is processed once the gateway recovers", a.processed == o.Messages && a.left == 0,
		fmt.Sprintf("%d of %d processed, %d left", a.processed, o.Messages, a.left))
	closing := "no probe closed it"
	if br.closedRecovery {
		closing = "the last closed it at " + clock.Stamp(br.closedAt)
	}
	if !exercised {
		r.NotExercised(checkBreakerCloses, o.outageMissed())
		return
	}
	r.Check(checkBreakerCloses, br.closedRecovery,
		fmt.Sprintf("%s; %s (gateway back at %s)", report.Plural(br.probes, "probe"), closing, clock.Stamp(o.phases()[2].from)))
}

// whyBreakerFailed says what these flags did to the AFTER checks that failed.
func (o *stormOptions) whyBreakerFailed(failed map[string]bool, after *stormRun) []string {
	a := after.read
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case !after.breaker:
		return []string{"--breaker=false switches the breaker off: the consumer retried into the down gateway\n" +
			"like the BEFORE design, each message on its own schedule"}
	case a.breaker.opens == 0:
		why = append(why, fmt.Sprintf("the outage produced %s, fewer than --failures-to-open %d: the breaker never opened",
			report.Plural(a.calls[1], "failed call"), o.FailuresToOpen))
	}
	if a.dead > 0 {
		probed := []string{"a probe is a real message, and each failed probe spends an attempt of the message it carries:"}
		var unprobed []string
		for _, m := range after.msgs {
			switch {
			case m.Status != outbox.DeadLettered:
			case a.breaker.failedProbesOf[m.Key] == 0:
				unprobed = append(unprobed, m.Key)
			case len(probed) <= 3:
				probed = append(probed, fmt.Sprintf("%s failed its %s, %d of them as probes (one every %s of the %s outage)",
					m.Key, report.Plural(m.AttemptCount, "attempt"), a.breaker.failedProbesOf[m.Key], clockText(o.Cooldown), clockText(o.Outage)))
			}
		}
		if len(probed) > 1 {
			why = append(why, strings.Join(probed, "\n"))
		}
		if len(unprobed) > 0 {
			why = append(why, fmt.Sprintf("%s each failed %s before the breaker stopped the consumer, none as a\n"+
				"probe: the outage's first failures use up a retry budget of %d", firstOf(strings.Join(unprobed, ", ")),
				report.Plural(o.MaxAttempts, "attempt"), o.MaxAttempts))
		}
	}
	if len(why) == 0 {
		why = append(why, unexplained)
	}
	return why
}
