package governance

import (
	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The AFTER of the stale-claim pair; its options, race and report are the
// BEFORE's (stale_claim_overwrites.go), with the claim check on.
const staleAfter = "governance-fenced-claim"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    staleAfter,
		Family:  "governance",
		Kind:    report.After,
		Pair:    staleBefore,
		Summary: "AFTER: the claim check refuses a stale worker's write; a Delivered row and an owner's dead-letter stand",
		Long: `The same interleaving, on the same real database with two connections and real
goroutines: A's lease expires while its provider call is open, B claims (token 2) and
delivers, then A's late failure arrives. This time every claim-mode write carries
the claim: it applies only while the row is live and still has the writer's owner
and token. B's delivery cleared the claim and ended the entry, so A's write matches
no row: it is refused, logged as refused in the transition log and counted, and
B's Delivered row stands — delivered once, no false dead-letter. The same race runs
on GOV-002, which the provider rejects for good when B emits it: B, the current
owner, writes a dead-letter, and A's late write is refused over it too: the
dead-letter stands, never emitted again. --claim-check=false
switches the check off: A's write lands by Id alone, as in the BEFORE design, and the
safety checks fail.`,
		Example: `  outboxlab governance-fenced-claim
  outboxlab governance-fenced-claim --prior-failures 4    # A's would-be dead-letter is refused too
  outboxlab governance-fenced-claim --lease 10s --slow-emit 11s`,
		FailsWith:        []string{"--claim-check=false"},
		NotExercisedWith: []string{"--slow-emit", "20s"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindStale(fs, true) },
	})
}
