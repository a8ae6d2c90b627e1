package governance

import (
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The sections of "Governance Outbox Poison-Message Controls" (the
// AsiBackbone outbox drain's documentation) the family follows.
const (
	configCourse   = `"Governance Outbox Poison-Message Controls", §"Configuration" and §"Drain behavior"`
	policyCourse   = `"Governance Outbox Poison-Message Controls", §"Authoritative retry policy"`
	alertCourse    = `"Governance Outbox Poison-Message Controls", §"Alerting responsibilities"`
	reviewCourse   = `"Governance Outbox Poison-Message Controls", §"Incident review and manual remediation"`
	replayCourse   = `"Governance Outbox Poison-Message Controls", §"Replay guidance"`
	claimingCourse = `"Governance Outbox Poison-Message Controls", §"Claim-lease considerations"`
)

func init() {
	off := []string{"--dead-letter-on-max-retry-attempts=false"}
	scenarios.DeclareNext(map[string]scenarios.Next{
		"governance-threshold": {Try: off, Verdict: report.VerdictFail,
			Shows: "the threshold switched off: the poison entries stay eligible for ever", Course: configCourse},
		"governance-legacy-max-retry-count": {Try: off, Verdict: report.VerdictFail,
			Shows: "no dead-letter at the threshold: nothing stops the failing entries", Course: policyCourse},
		"governance-deferred-results": {Try: off, Verdict: report.VerdictFail,
			Shows: "no dead-letter at the threshold: the failing entry is retried for ever", Course: configCourse},
		"governance-dead-letter-alerts": {Try: []string{"--verbose-alerts"}, Verdict: report.VerdictFail,
			Shows: "verbose alerts: the payload reaches the alert", Course: alertCourse},
		"governance-dead-letter-disabled": {Try: []string{"--host-review-after", "0"}, Verdict: report.VerdictFail,
			Shows: "no host review: the failing entries are retried with no terminal policy", Course: reviewCourse},
		"governance-stale-claim-overwrites": {Try: []string{"--prior-failures", "4"}, Verdict: report.VerdictReproduced,
			Shows:  "an entry one failure from the threshold: the late write dead-letters a delivered entry",
			Course: claimingCourse},
		"governance-fenced-claim": {Try: []string{"--claim-check=false"}, Verdict: report.VerdictFail,
			Shows: "no claim check: the stale worker's write lands over the terminal row", Course: claimingCourse},
		"governance-host-replay": {Try: []string{"--close-without-receipt"}, Verdict: report.VerdictFail,
			Shows: "incidents closed without a delivery receipt: the check refuses the closure", Course: replayCourse},
	})
}
