package ordered

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	corruptionName = "ordered-silent-corruption"
	replayName     = "ordered-replay-in-order"
)

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    corruptionName,
		Family:  "ordered",
		Kind:    report.Before,
		Pair:    replayName,
		Summary: "Ordered BEFORE: OrderCancelled is applied while PaymentReceived sits in the DLQ; the redrive sets it back to Paid",
		Long: `Order 42 is placed, paid and then cancelled; every other order ships. The
PaymentReceived handler fails for order 42 and the record is dead-lettered;
OrderCancelled arrives next and is applied to the Placed order. After the fix
the dead letter is redriven the usual way, to the end of the line, and the
payment moves the cancelled order back to Paid. Nothing failed after the fix,
the DLQ is empty, the consumer is idle, and the data is wrong: the only check
that catches it compares the final order table with the one an in-order run
of the same log produces.

When the failing message is the order's last one (--failing-message
OrderCancelled) nothing is applied while it waits and the redrive sets the
order right: the corruption is not exercised (verdict NOT EXERCISED, exit 1).`,
		Example: `  outboxlab ordered-silent-corruption
  outboxlab ordered-silent-corruption --failing-message OrderPlaced    # the cancel finds no order at all
  outboxlab ordered-silent-corruption --failing-order 45 --orders 10`,
		FailsWith:        []string{"--failing-message=OrderCancelled"},
		NotExercisedWith: []string{"--failing-message=OrderCancelled"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindCorruption(fs, false) },
	})
}

type corruptionOptions struct {
	*options
	after      bool
	Idempotent bool
}

func bindCorruption(fs *pflag.FlagSet, after bool) *corruptionOptions {
	o := &corruptionOptions{options: bindOptions(fs, PaymentReceived, true), after: after, Idempotent: true}
	if after {
		fs.BoolVar(&o.Idempotent, "idempotent", true, "skip a record whose MessageId was already applied (--idempotent=false applies it again)")
	}
	return o
}

func (o *corruptionOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	before := side{
		name:   corruptionName,
		title:  "Ordered messages — BEFORE: silent corruption after a redrive",
		design: design{contain: keyedlog.DeadLetterOnly, idempotent: true, recovery: redrive},
		checks: o.corruptionChecks,
		pass:   "SILENT CORRUPTION — NOTHING FAILED AND THE DATA IS WRONG",
		fail:   "THE FAILURE MODE WAS NOT REPRODUCED",
	}
	after := side{
		name:   replayName,
		title:  "Ordered messages — AFTER: replay by correlation id, in sequence order, then unblock",
		design: design{contain: keyedlog.PoisonCorrelation, idempotent: o.Idempotent, recovery: replayTwice},
		extra:  o.writeReplays,
		checks: o.replayChecks,
		pass:   "REPLAYED IN SEQUENCE ORDER, THEN UNBLOCKED — THE ORDER ENDS CANCELLED",
		fail:   "THE REPLAY DID NOT RESTORE THE IN-ORDER STATE",
	}
	if !o.Idempotent {
		after.design.off = "--idempotent=false: a record whose MessageId was applied is applied again"
	}
	return o.reportPair(ctx, env, before, after, o.after)
}

func (o *corruptionOptions) corruptionChecks(r *page, run *run) {
	o.checkFailingDeadLettered(r, run)
	const (
		appliedName = "later messages applied while it sat in the DLQ"
		caughtName  = "only the in-order comparison catches it"
	)
	rec := o.failingRecord(run)
	var deadSince, appliedAt []string
	if d, ok := deadLetterOf(run.idle, rec.ID); ok {
		deadSince = append(deadSince, stamp(d.At))
	}
	// AppliedMessages rows of the order's later records, from the log (not
	// a redriven copy) and before the fix.
	for _, a := range run.applied {
		later := recordByID(run, a.LogRecordID)
		if later.Key == rec.Key && later.Sequence > rec.Sequence && a.Via == keyedlog.ViaLog && later.RedriveOf == 0 && a.At.Before(run.fixAt) {
			appliedAt = append(appliedAt, fmt.Sprintf("%d#%d %s at %s", o.FailingOrder, later.Sequence, later.Type, stamp(a.At)))
		}
	}
	if o.later() == 0 {
		r.NotExercised(appliedName, o.noLater("no later message could be applied while it sat in the DLQ"))
	} else {
		r.Check(appliedName, len(deadSince) == 1 && len(appliedAt) == o.later(),
			fmt.Sprintf("%s; %s in the DLQ since %s", report.Dash(joinStrings(appliedAt)), rec.MessageID, report.Dash(joinStrings(deadSince))))
	}
	failures := 0
	for _, c := range run.calls {
		if c.stage != beforeFix && c.err != nil {
			failures++
		}
	}
	left := 0
	for _, d := range run.end.dead {
		if d.RedrivenAt.IsZero() {
			left++
		}
	}
	r.Check("nothing failed after the fix", failures == 0 && left == 0 && len(run.end.waiting) == 0,
		fmt.Sprintf("%s, %s not redriven, %s waiting",
			report.Plural(failures, "failed attempt"), report.Plural(left, "dead letter"), report.Plural(len(run.end.waiting), "record")))
	o.checkOthersFlowed(r, run)
	if o.later() == 0 {
		r.NotExercised(caughtName, o.noLater("the redrive put the order right, there was nothing to catch"))
		return
	}
	o.checkEndDiffers(r, run, caughtName)
}
