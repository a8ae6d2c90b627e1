package retry

import (
	"fmt"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const heldBackoff = "backoff-held-past-visibility-timeout"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    heldBackoff,
		Family:  "retry",
		Kind:    report.Before,
		Pair:    queueBackoff,
		Summary: "A consumer waits out its backoff holding the message: the visibility timeout expires and a second consumer runs the same job",
		Long: `Four consumers poll one outbox of overdue notifications. When a send
fails, this design keeps the message and sleeps through the backoff before
sending again. Once a sleep runs past the message's visibility timeout (its
lease), another consumer claims the message and sends it too: the same job runs
twice at once, a notification goes out twice, and the first consumer's
transitions are refused by the owner check only after its send has happened.
While they sleep, consumers do no other work. The course's rule, "the
backoff must not exceed the visibility timeout", is checked from the holds:
a held wait that ends within its claim's lease is never overlapped, one that
runs past it is.

The comparison table beside it runs the AFTER design on the same seeded data.`,
		Example: `  outboxlab backoff-held-past-visibility-timeout
  outboxlab backoff-held-past-visibility-timeout --consumers 5`,
		// A lease longer than every held backoff: no second consumer takes a message over.
		FailsWith: []string{"--visibility-timeout", "10m"},
		Bind:      func(fs *pflag.FlagSet) scenarios.Options { return bindVisibility(fs, false) },
	})
}

// The BEFORE design's checks, by name.
const (
	checkHeldOutlives = "a held backoff outlives the visibility timeout"
	checkHeldTwice    = "a notification goes out twice"
)

// heldSide judges the BEFORE run by its audit log, its gateway ledger and
// the database's answers to the owner-checked updates: the failure mode,
// reproduced.
func (o *visibilityOptions) heldSide() pairSide[*pairRun] {
	return pairSide[*pairRun]{
		pass: verdictHeldReproduced, fail: verdictHeldMissed,
		check: func(r *report.Report, before, _ *pairRun) {
			heldChecks(r, before)
			o.heldRuleCheck(r, before.read.rule)
		},
		why: func(failed map[string]bool, before, _ *pairRun) []string { return o.whyHeldMissed(failed, before.read) },
	}
}

func heldChecks(r *report.Report, run *pairRun) {
	f := run.read
	r.Check(checkHeldOutlives, f.outlived > 0,
		report.Plural(f.outlived, "held backoff")+" ran past the lease")
	r.Check("a second consumer runs the same job concurrently", f.overlaps > 0 && f.concurrent > 0,
		fmt.Sprintf("%s, %s while another consumer held the message",
			report.Plural(f.overlaps, "overlapping hold"), report.Plural(f.concurrent, "send")))
	r.Check(checkHeldTwice, f.duplicates > 0,
		report.Plural(f.duplicates, "extra delivery"))
	r.Check("the owner check refuses the first holder only after its send", run.refused > 0 && f.superseded > 0,
		report.Plural(run.refused, "transition")+" refused")
	r.Check("a consumer asleep holding a message does no other work", f.heldSleep > 0 && f.orphans == 0,
		fmt.Sprintf("%s asleep holding, %s meanwhile", clockText(f.heldSleep), report.Plural(f.orphans, "send")))
}

// whyHeldMissed says what these flags did to the BEFORE checks that failed.
func (o *visibilityOptions) whyHeldMissed(failed map[string]bool, f pairMetrics) []string {
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case f.heldSleep == 0:
		why = append(why, fmt.Sprintf("no consumer slept holding a message: with --max-attempts %d no failed send was retried", o.MaxAttempts))
	case o.Consumers == 1:
		why = append(why, "one consumer: when a held backoff outlives the lease there is no second consumer to take\n"+
			"the message over, so no job runs twice and no transition is refused")
	case f.outlived == 0:
		why = append(why, fmt.Sprintf("the --visibility-timeout of %s outlasts every held backoff (the longest hold took %s):\n"+
			"no lease ran out, so no second consumer took a message over and nothing was sent twice",
			clockText(o.Visibility), secondsText(f.longest)))
	case f.overlaps > 0 && f.duplicates == 0 && failed[checkHeldTwice]:
		why = append(why, "leases ran out and second consumers took messages over, but none of the sends they\n"+
			"duplicated went through: the messages taken over were ones that fail")
		delete(failed, checkHeldTwice)
		if len(failed) > 0 {
			why = append(why, unexplained)
		}
	default:
		why = append(why, unexplained)
	}
	return why
}
