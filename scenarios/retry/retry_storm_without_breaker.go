package retry

import (
	"fmt"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const stormNoBreaker = "retry-storm-without-breaker"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    stormNoBreaker,
		Family:  "retry",
		Kind:    report.Before,
		Pair:    stormBreaker,
		Summary: "The gateway is down for a minute: every message keeps retrying on its own schedule and the gateway takes all the load",
		Long: `A consumer drains an outbox of notifications through the worker, with
exponential backoff and a retry budget. For a window the gateway is down and
answers every send with 503. Each message backs off on its own schedule, so
the consumer keeps calling: the gateway takes the whole retry load while it is
trying to recover, and messages that did nothing wrong run out of attempts and
are dead-lettered because of the outage.

The comparison table beside it runs the AFTER design on the same seeded data.`,
		Example: `  outboxlab retry-storm-without-breaker
  outboxlab retry-storm-without-breaker --messages 60     # 275 calls into the down gateway`,
		// Enough attempts to outlast the outage: the storm, but no dead letters.
		FailsWith: []string{"--max-attempts", "20"},
		// The gateway goes down after every message was sent: no outage to storm into.
		NotExercisedWith: []string{"--outage-start", "10m"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindStorm(fs, false) },
	})
}

// The BEFORE design's checks, by name.
const (
	checkStormLoad   = "the down gateway takes the whole retry load"
	checkStormDead   = "messages are dead-lettered because of the outage"
	checkStormCostly = "the outage costs notifications that were never wrong"
)

// stormSide judges the BEFORE design by the gateway's ledger and the outbox
// rows: the failure mode, reproduced.
func (o *stormOptions) stormSide() pairSide[*stormRun] {
	return pairSide[*stormRun]{
		pass: verdictStormReproduced, fail: verdictStormMissed,
		check: func(r *report.Report, before, _ *stormRun) {
			b := before.read
			retries := b.calls[1] - b.affected
			if b.calls[1] == 0 {
				why := o.outageMissed()
				for _, name := range []string{checkStormLoad, checkStormDead, checkStormCostly} {
					r.NotExercised(name, why)
				}
				return
			}
			if o.MaxAttempts == 1 {
				r.NotExercised(checkStormLoad, "with --max-attempts 1 a failed message is dead-lettered at once: "+
					"no retry reaches the gateway; raise --max-attempts")
			} else {
				r.Check(checkStormLoad, retries > 0,
					fmt.Sprintf("%s during the outage for %s, %d of them retries",
						report.Plural(b.calls[1], "call"), report.Plural(b.affected, "message"), retries))
			}
			r.Check(checkStormDead, b.dead > 0,
				fmt.Sprintf("%d dead-lettered; the gateway was only down", b.dead))
			r.Check(checkStormCostly, b.processed < o.Messages,
				fmt.Sprintf("%d of %d processed", b.processed, o.Messages))
		},
		why: func(failed map[string]bool, before, _ *stormRun) []string {
			return o.whyStormMissed(failed, before.read)
		},
	}
}

// outageMissed is why nothing of the storm pair was exercised when no call
// reached the gateway while it was down.
func (o *stormOptions) outageMissed() string {
	return fmt.Sprintf("the gateway went down %s after the start, when the consumer had sent every message: "+
		"no call reached it while it was down; lower --outage-start", clockText(o.OutageStart))
}

// whyStormMissed says what these flags did to the BEFORE checks that failed.
func (o *stormOptions) whyStormMissed(failed map[string]bool, b stormMetrics) []string {
	if len(failed) == 0 {
		return nil
	}
	var why []string
	if b.dead == 0 {
		why = append(why, fmt.Sprintf("--max-attempts %d outlasts the %s outage (backoff %s doubling, capped at %s):\n"+
			"no message ran out of attempts while the gateway was down, so none was dead-lettered",
			o.MaxAttempts, clockText(o.Outage), clockText(o.BaseBackoff), clockText(o.MaxBackoff)))
	}
	if len(why) == 0 {
		why = append(why, unexplained)
	}
	return why
}
