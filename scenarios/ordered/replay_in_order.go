package ordered

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    replayName,
		Family:  "ordered",
		Kind:    report.After,
		Pair:    corruptionName,
		Summary: "Ordered AFTER: replay by correlation id in sequence order, then unblock; a second replay is a no-op",
		Long: `The ordered-silent-corruption log and bug. The consumer remembers order-42 as
poisoned when PaymentReceived is dead-lettered, so OrderCancelled is parked
instead of applied. After the fix, the replay tool takes every dead and parked
record of order-42, in sequence order (the order comes from the payload's
sequence number, not from when a record was resubmitted), hands them to the
handler, then removes order-42 from the holds. The consumer is idempotent: the
operator runs the replay a second time and nothing changes. Order 42 ends
Cancelled, as in an in-order run.

--idempotent=false makes the second replay pay the order twice: the checks fail.`,
		Example: `  outboxlab ordered-replay-in-order
  outboxlab ordered-replay-in-order --failing-message OrderPlaced   # replays 1, 2, 3
  outboxlab ordered-replay-in-order --failing-order 45 --fix-after 1h`,
		FailsWith:        []string{"--idempotent=false"},
		NotExercisedWith: []string{"--failing-message=OrderCancelled"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindCorruption(fs, true) },
	})
}

func (o *corruptionOptions) replayChecks(r *page, run *run) {
	o.checkLaterParked(r, run, "later messages parked while it was dead")
	o.checkReplayInSequence(r, run, 0)
	o.checkReleasedAfterReplay(r, run, "unblocked after the replay, not before")
	// The replay tool resends every dead and parked record of the id; the
	// handler's ledger says how many of them it applied again.
	resent := 0
	for _, rows := range [][]keyedlog.SetAside{run.end.dead, run.end.parked} {
		for _, a := range rows {
			if a.Record.CorrelationID == orderKey(o.FailingOrder) {
				resent++
			}
		}
	}
	handed, again := 0, 0
	var failed *call
	for i, c := range run.calls {
		if c.stage == replayPass+1 {
			handed++
			if c.err == nil {
				again++
			} else if failed == nil {
				failed = &run.calls[i]
			}
		}
	}
	ran := len(run.replays) == 2
	detail := "no second replay"
	unchanged := ran && slices.Equal(run.afterEach[0], run.afterEach[1])
	if ran {
		changed := "unchanged"
		if !unchanged {
			changed = "CHANGED"
		}
		detail = fmt.Sprintf("%d resent, %d skipped as already applied, %d applied again; order table %s",
			resent, resent-handed, again, changed)
		if failed != nil {
			detail = fmt.Sprintf("%d to resend, %d applied again, then %d#%d %s FAILED (%v) and the replay stopped; order table %s",
				resent, again, o.FailingOrder, failed.rec.Sequence, failed.rec.Type, failed.err, changed)
		}
	}
	r.Check("a second replay is a no-op", ran && again == 0 && failed == nil && unchanged, detail)
	o.checkOthersFlowed(r, run)
	o.checkEndSame(r, run)
	if ran {
		r.Metric("second_replay_applied", again)
		r.Metric("second_replay_duplicates", resent-handed)
	}
}

// writeReplays prints what each replay pass did.
func (o *corruptionOptions) writeReplays(r *page, run *run) {
	r.Section("Replays of " + orderKey(o.FailingOrder) + " (after the fix)")
	var rows [][]string
	for i, res := range run.replays {
		var done []string
		for _, e := range res.Events {
			if e.Kind == keyedlog.Applied || e.Kind == keyedlog.Duplicate {
				done = append(done, fmt.Sprintf("%d#%d", o.FailingOrder, e.Record.Sequence))
			}
		}
		i42 := o.FailingOrder - firstOrder
		rows = append(rows, []string{fmt.Sprint(i + 1), strings.Join(done, ", "), fmt.Sprint(res.Applied), fmt.Sprint(res.Duplicates),
			fmt.Sprint(res.Released), run.afterEach[i][i42].brief() + ", " + report.Plural(run.afterEach[i][i42].Payments, "payment")})
	}
	r.Table([]string{"Pass", "Records handed over", "Applied", "Skipped", "Holds freed", fmt.Sprintf("Order %d after it", o.FailingOrder)}, rows)
}
