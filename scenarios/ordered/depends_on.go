package ordered

import (
	"fmt"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    dependsOnName,
		Family:  "ordered",
		Kind:    report.After,
		Pair:    orphanName,
		Summary: "Ordered AFTER: sequence numbers with dependsOn; a record whose dependency is not applied is parked",
		Long: `The same log, bug and lenient handler as ordered-orphan, read by a consumer that
tracks what it applied (AppliedMessages, committed with the business change)
and checks each record's dependsOn first: PaymentReceived needs sequence 1,
OrderShipped needs sequence 2. With OrderPlaced dead-lettered, both are parked
with that reason instead of being applied against a missing order, and no
orphan row is ever written. After the fix, the dead and parked records of
order 42 are replayed in sequence order and every order ends where an in-order
run ends.

Switch the check off with --depends-on=false to watch the orphans come back.
With --failing-message OrderShipped, the order's last message, nothing depends
on the dead letter: nothing is parked, and the check is not exercised (exit 1).`,
		Example: `  outboxlab ordered-depends-on
  outboxlab ordered-depends-on --failing-message PaymentReceived
  outboxlab ordered-depends-on --partitions 1 --max-attempts 5`,
		FailsWith:        []string{"--depends-on=false"},
		NotExercisedWith: []string{"--failing-message=OrderShipped"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindOrphan(fs, true) },
	})
}

func (o *orphanOptions) dependsOnChecks(r *page, run *run) {
	n := outOfOrder(run)
	r.Check("no record applied before its dependency", n == 0, appliedEarly(n))
	r.Check("no orphan rows", run.idle.orphans.total() == 0 && run.end.orphans.total() == 0,
		fmt.Sprintf("%s when idle; %s at the end", run.idle.orphans, run.end.orphans))
	const parkedName = "later messages parked until their dependency is applied"
	if parked := o.laterRows(run.idle.parked); o.later() == 0 {
		r.NotExercised(parkedName, o.noLater("no later message depends on it, so none had to be parked"))
	} else {
		reason := "—"
		if len(parked) > 0 {
			reason = parked[0].Reason
		}
		r.Check(parkedName, len(parked) == o.later(), fmt.Sprintf("%d / %d parked (%s)", len(parked), o.later(), reason))
	}
	o.checkReplayInSequence(r, run, 0)
	o.checkOthersFlowed(r, run)
	o.checkEndSame(r, run)
}
