package workers

import (
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func init() {
	scenarios.DeclareNext(map[string]scenarios.Next{
		"worker-throughput": {Try: []string{"--handler-delay", "1ms", "--messages", "1000"}, Verdict: report.VerdictPass,
			Shows:  "a handler that waits outside the transaction: now more workers drain faster",
			Course: "the lab's own measurement of the claim engine (no course section): one writer at a time on SQLite"},
	})
}
