package ordered

import (
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The course article the family follows: "Dead letters and ordered
// messages" (trail step 7 of 9), its three kinds of damage and five remedies.
const (
	damageCourse = `"Dead letters and ordered messages", §"Three kinds of damage"`
	remedyCourse = `"Dead letters and ordered messages", §"Remedies" (Table 1)`
)

func init() {
	scenarios.DeclareNext(map[string]scenarios.Next{
		orphanName: {Try: []string{"--failing-message", "PaymentReceived"}, Verdict: report.VerdictReproduced,
			Shows: "the payment fails instead: the shipment runs without it", Course: damageCourse},
		dependsOnName: {Try: []string{"--depends-on=false"}, Verdict: report.VerdictFail,
			Shows: "no dependsOn: a later message is applied without the state it needs", Course: remedyCourse},
		cascadeName: {Try: []string{"--max-attempts", "5"}, Verdict: report.VerdictReproduced,
			Shows: "more attempts: more wasted work and longer stalls before each dead-letter", Course: damageCourse},
		poisonedName: {Try: []string{"--remember-poisoned=false"}, Verdict: report.VerdictFail,
			Shows: "the poisoned id forgotten: the later messages crash into the dead-letter queue too", Course: remedyCourse},
		"ordered-silent-corruption": {Try: []string{"--failing-message", "OrderPlaced"}, Verdict: report.VerdictReproduced,
			Shows: "the order itself fails: the cancel finds no order at all", Course: damageCourse},
		"ordered-replay-in-order": {Try: []string{"--idempotent=false"}, Verdict: report.VerdictFail,
			Shows: "consumers that are not idempotent: the replay applies a message twice", Course: remedyCourse},
		blockKeyName: {Try: []string{"--block-key=false"}, Verdict: report.VerdictFail,
			Shows: "the whole partition paused instead: the other orders in it wait too", Course: remedyCourse},
		"ordered-publish-failure-event": {Try: []string{"--publish=false"}, Verdict: report.VerdictFail,
			Shows: "no failure event: nobody downstream learns that the step failed", Course: remedyCourse},
		permanentName: {Try: []string{"--classify=false"}, Verdict: report.VerdictFail,
			Shows: "every failure retried alike: the permanent one wastes its attempts", Course: remedyCourse},
	})
}
