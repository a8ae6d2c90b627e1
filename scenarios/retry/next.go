package retry

import (
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The sections of "Poison Messages and Retry" (academia.sh) the family follows.
const (
	poisonCourse     = `"Poison Messages and Retry", §"Poison Message"`
	waitCourse       = `"Poison Messages and Retry", §"Calculating the Wait Duration"`
	jitterCourse     = `"Poison Messages and Retry", §"Jitter"`
	visibilityCourse = `"Poison Messages and Retry", §"Retry Budget and Visibility Timeout"`
	breakerCourse    = `"Poison Messages and Retry", §"Retry Budget and Visibility Timeout" (the circuit breaker it points to)`
)

func init() {
	scenarios.DeclareNext(map[string]scenarios.Next{
		poisonCounter: {Try: []string{"--lethal", "2,4", "--threshold", "2"}, Verdict: report.VerdictPass,
			Shows: "two lethal messages and a lower threshold: both isolated sooner, the rest processed", Course: poisonCourse},
		bodyValidation: {Try: []string{"--validate=false"}, Verdict: report.VerdictFail,
			Shows: "no validation: every malformed body is delivered until the counter isolates it", Course: poisonCourse},
		backoffSchedules: {Try: []string{"--attempts", "12", "--cap", "10s"}, Verdict: report.VerdictPass,
			Shows: "more attempts under a lower cap: the cap takes over sooner", Course: waitCourse},
		jitterWave: {Try: []string{"--seed", "7", "--consumers", "1000"}, Verdict: report.VerdictPass,
			Shows: "another draw and a bigger crowd: the same spread", Course: jitterCourse},
		heldBackoff: {Try: []string{"--consumers", "5"}, Verdict: report.VerdictReproduced,
			Shows: "more consumers: more of them take over a message still held in backoff", Course: visibilityCourse},
		queueBackoff: {Try: []string{"--backoff-on-queue=false"}, Verdict: report.VerdictFail,
			Shows: "the backoff held in the consumer again: the lease runs out under it", Course: visibilityCourse},
		stormNoBreaker: {Try: []string{"--messages", "60"}, Verdict: report.VerdictReproduced,
			Shows: "more messages: more calls into the gateway that is down", Course: breakerCourse},
		stormBreaker: {Try: []string{"--breaker=false"}, Verdict: report.VerdictFail,
			Shows: "no breaker: every retry calls the gateway that is down", Course: breakerCourse},
	})
}
