package ordered

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	cascadeName  = "ordered-crash-cascade"
	poisonedName = "ordered-remember-poisoned-ids"
)

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    cascadeName,
		Family:  "ordered",
		Kind:    report.Before,
		Pair:    poisonedName,
		Summary: "Ordered BEFORE: the handler throws on the missing order, is retried, is dead-lettered; every later message follows",
		Long: `The ordered-orphan log and bug with a strict handler: it assumes the earlier state
exists and throws when it does not. OrderPlaced for order 42 is dead-lettered
after its attempts; PaymentReceived then throws "order 42 not found", is
retried in place (its partition waiting out each backoff) and is dead-lettered
too, and so is OrderShipped. One bug, every message of the order in the DLQ,
healthy messages' attempts wasted, and the orders sharing the partition held
up by the retries. The run stops with no fix: order 42 does not exist.

When the failing message is the order's last one (--failing-message
OrderShipped) nothing follows it into the DLQ: the cascade is not exercised
(verdict NOT EXERCISED, exit 1).`,
		Example: `  outboxlab ordered-crash-cascade
  outboxlab ordered-crash-cascade --failing-message PaymentReceived   # the shipment throws "not Paid"
  outboxlab ordered-crash-cascade --max-attempts 5                    # more wasted attempts, longer stalls`,
		FailsWith:        []string{"--failing-message=OrderShipped"},
		NotExercisedWith: []string{"--failing-message=OrderShipped"},
		Bind: func(fs *pflag.FlagSet) scenarios.Options {
			return &cascadeOptions{options: bindWithoutFix(fs, OrderPlaced), RememberPoisoned: true}
		},
	})
}

type cascadeOptions struct {
	*options
	after            bool
	RememberPoisoned bool // the AFTER's guard; always on in the BEFORE's partner run
}

func (o *cascadeOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	before := side{
		name:   cascadeName,
		title:  "Ordered messages — BEFORE: a crash cascade into the dead-letter queue",
		design: design{contain: keyedlog.DeadLetterOnly, idempotent: true, strict: true, recovery: noFix},
		checks: o.cascadeChecks,
		pass:   "CRASH CASCADE — EVERY LATER MESSAGE FOLLOWED IT INTO THE DLQ",
		fail:   "THE FAILURE MODE WAS NOT REPRODUCED",
	}
	after := side{
		name:   poisonedName,
		title:  "Ordered messages — AFTER: remember poisoned correlation ids, park what carries them",
		design: design{contain: keyedlog.PoisonCorrelation, idempotent: true, strict: true, recovery: replay},
		tail:   o.writeGuardCost,
		checks: o.poisonedChecks,
		pass:   "POISONED ID REMEMBERED — LATER MESSAGES PARKED, NOT CRASHED",
		fail:   "THE POISONED-ID GUARD DID NOT HOLD",
	}
	if !o.RememberPoisoned {
		after.design.contain = keyedlog.DeadLetterOnly
		after.design.off = "--remember-poisoned=false: nothing parks the later messages"
	}
	return o.reportPair(ctx, env, before, after, o.after)
}

func (o *cascadeOptions) cascadeChecks(r *page, run *run) {
	o.checkFailingDeadLettered(r, run)
	const (
		followedName = "every later message of the order followed it into the DLQ"
		wastedName   = "attempts wasted on messages with nothing wrong with them"
	)
	if o.later() == 0 {
		// Nothing comes after the failing message for the strict handler to throw on.
		r.NotExercised(followedName, o.noLater("no later message could follow it into the DLQ"))
		r.NotExercised(wastedName, o.noLater("no later message found its state missing"))
		o.checkOthersFlowed(r, run)
		o.checkEndDiffers(r, run, "the order is not where an in-order run leaves it")
		r.Metric("later_dead_lettered", 0)
		r.Metric("wasted_attempts", 0)
		r.Metric("longest_other_wait_ms", o.longestWait(run).Milliseconds())
		return
	}
	// The later messages' DeadLetters rows, and how often the handler failed each.
	var attempts []int
	agree := true
	reason := "—"
	for _, d := range o.laterRows(run.end.dead) {
		n := failedCalls(run, d.Record.ID, beforeFix)
		attempts = append(attempts, n)
		agree = agree && d.Attempts == n
		reason = d.Reason
	}
	followed := len(attempts)
	each := "—"
	if len(attempts) > 0 {
		each = report.JoinInts(attempts)
		if report.AllEqual(attempts, attempts[0]) {
			each = strconv.Itoa(attempts[0])
		}
	}
	detail := fmt.Sprintf("%d / %d later messages dead-lettered after %s attempts each (%s)", followed, o.later(), each, reason)
	if !agree {
		detail += "; their DeadLetters rows count otherwise"
	}
	r.Check(followedName, followed == o.later() && report.AllEqual(attempts, o.MaxAttempts) && agree, detail)
	// Failed calls on records the bug did not touch: the strict handler threw
	// because the earlier state was missing.
	wasted := 0
	var healthy []int64
	for _, c := range run.calls {
		if c.err != nil && !c.faulty {
			wasted++
			if !slices.Contains(healthy, c.rec.ID) {
				healthy = append(healthy, c.rec.ID)
			}
		}
	}
	r.Check(wastedName, wasted > 0,
		fmt.Sprintf("%s on %s", report.Plural(wasted, "failed attempt"), report.Plural(len(healthy), "healthy message")))
	o.checkOthersFlowed(r, run)
	o.checkEndDiffers(r, run, "the order is not where an in-order run leaves it")
	r.Metric("later_dead_lettered", followed)
	r.Metric("wasted_attempts", wasted)
	r.Metric("longest_other_wait_ms", o.longestWait(run).Milliseconds())
}
