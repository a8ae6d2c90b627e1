package retry

import (
	"fmt"

	"outboxlab/core/clock"

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
backoff must not exceed the visibility timeout", is checked from the holds
the way the lease counts them: a held wait and the send after it that end
within the claim's lease are never overlapped; once they run past it (a
hanging send does, too) another consumer takes the message.

The comparison table beside it runs the AFTER design on the same seeded data.`,
		Example: `  outboxlab backoff-held-past-visibility-timeout
  outboxlab backoff-held-past-visibility-timeout --consumers 5`,
		// A lease longer than every held backoff: no second consumer takes a message over.
		FailsWith: []string{"--visibility-timeout", "10m"},
		// No retry: no consumer sleeps holding a message.
		NotExercisedWith: []string{"--max-attempts", "1"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindVisibility(fs, false) },
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
		check: func(r *report.Report, before, _ *pairRun) { o.heldChecks(r, before) },
		why:   func(failed map[string]bool, before, _ *pairRun) []string { return o.whyHeldMissed(failed, before.read) },
	}
}

// The BEFORE checks that need a second consumer, by name.
const (
	checkHeldConcurrent = "a second consumer runs the same job concurrently"
	checkHeldRefused    = "the owner check refuses the first holder only after its send"
)

// heldChecks judge the BEFORE run. Nothing of the design is exercised when
// no consumer slept holding a message; what needs a second consumer is not
// exercised with one.
func (o *visibilityOptions) heldChecks(r *report.Report, run *pairRun) {
	f := run.read
	if f.heldSleep == 0 {
		why := fmt.Sprintf("no consumer slept holding a message: with --max-attempts %d no failed send was retried; "+
			"raise --max-attempts", o.MaxAttempts)
		for _, name := range []string{checkHeldOutlives, checkHeldConcurrent, checkHeldTwice, checkHeldRefused,
			checkHeldAsleep, checkHeldRule} {
			r.NotExercised(name, why)
		}
		return
	}
	r.Check(checkHeldOutlives, f.outlived > 0,
		report.Plural(f.outlived, "held backoff")+" ran past the lease")
	alone := "one consumer: no second consumer can take a message over when a lease runs out; raise --consumers"
	if o.Consumers == 1 {
		r.NotExercised(checkHeldConcurrent, alone)
		r.NotExercised(checkHeldTwice, alone)
		r.NotExercised(checkHeldRefused, alone)
	} else {
		r.Check(checkHeldConcurrent, f.overlaps > 0 && f.concurrent > 0,
			fmt.Sprintf("%s, %s while another consumer held the message",
				report.Plural(f.overlaps, "overlapping hold"), report.Plural(f.concurrent, "send")))
		r.Check(checkHeldTwice, f.duplicates > 0,
			report.Plural(f.duplicates, "extra delivery"))
		r.Check(checkHeldRefused, run.refused > 0 && f.superseded > 0,
			report.Plural(run.refused, "transition")+" refused")
	}
	r.Check(checkHeldAsleep, f.heldSleep > 0 && f.orphans == 0,
		fmt.Sprintf("%s asleep holding, %s meanwhile", clockText(f.heldSleep), report.Plural(f.orphans, "send")))
	if o.Consumers == 1 {
		r.NotExercised(checkHeldRule, alone)
		return
	}
	o.heldRuleCheck(r, f.rule)
}

// checkHeldAsleep is the BEFORE check on the consumer's sleep.
const checkHeldAsleep = "a consumer asleep holding a message does no other work"

// whyHeldMissed says what these flags did to the BEFORE checks that failed.
func (o *visibilityOptions) whyHeldMissed(failed map[string]bool, f pairMetrics) []string {
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case f.outlived == 0 && f.rule.past > 0:
		why = append(why, "no held backoff ran past the lease; a send after one did: "+o.sendPastLease(f))
		delete(failed, checkHeldOutlives)
		if f.overlaps > 0 && f.duplicates == 0 {
			why[0] += "; the sends taken over failed, so nothing was sent twice"
			delete(failed, checkHeldTwice)
		}
		if len(failed) > 0 {
			why = append(why, unexplained)
		}
	case f.outlived == 0:
		why = append(why, fmt.Sprintf("the --visibility-timeout of %s outlasts every held backoff and the send after it "+
			"(the longest held wait took %s): no lease ran out, so no second consumer took a message over and "+
			"nothing was sent twice", clockText(o.Visibility), secondsText(f.rule.longestHeld)))
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

// sendPastLease tells the first send after a held wait that ran past its
// claim's lease without starting after it (a hanging send), and who claimed
// the message meanwhile, if anyone. The holds, the ledger's sends and the
// claims are the run's own (the timeline and the overlap table show them).
func (o *visibilityOptions) sendPastLease(f pairMetrics) string {
	for _, h := range f.holds {
		for _, s := range h.sends[min(1, len(h.sends)):] {
			if s.at.After(h.leaseEnd) || !s.done.After(h.leaseEnd) {
				continue
			}
			told := fmt.Sprintf("%s's send of %s started at %s and %s to %s, past the lease's end at %s",
				h.consumer, h.key, clock.Stamp(s.at), s.short, clock.Stamp(s.done), clock.Stamp(h.leaseEnd))
			for _, g := range f.holds {
				if g.key == h.key && g.consumer != h.consumer && g.from.After(h.leaseEnd) && g.from.Before(s.done) {
					return told + fmt.Sprintf("; %s claimed %s at %s", g.consumer, g.key, clock.Stamp(g.from))
				}
			}
			return told + "; no other consumer claimed it meanwhile"
		}
	}
	return "none is in the ledger"
}
