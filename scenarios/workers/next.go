package workers

import (
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func init() {
	scenarios.DeclareNext(map[string]scenarios.Next{
		"worker-throughput": {Try: []string{"--workers", "1,1"}, Verdict: report.VerdictPass,
			Shows:  "one worker against itself: what the noise alone looks like, so a real difference stands out",
			Course: "the lab's own measurement of the claim engine (no course section): one writer at a time on SQLite"},
	})
}
