package retry

import (
	"fmt"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const queueBackoff = "backoff-on-queue-timeline"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    queueBackoff,
		Family:  "retry",
		Kind:    report.After,
		Pair:    heldBackoff,
		Summary: "The message goes back on the queue with its visible-at pushed forward by the backoff: no overlaps, and both budgets enforced",
		Long: `The same consumers and notifications. A failed send puts the message back to
Pending with NextAttemptUtc = now + backoff, so the wait happens on the queue's
timeline: the consumer is free for other work at once, and no second consumer
can see the message before it is due. The retry budget (--max-attempts) and
the time budget (--time-budget, counted from the first delivery in the audit
log) are enforced together: a message is dead-lettered when either runs out.
One notification leaves by each way. The rule "the backoff must not exceed
the visibility timeout" binds a consumer that holds the message; here none
does, so a backoff longer than the timeout is harmless, and the report says
so from the run's waits on the queue.

Make the visibility timeout shorter than a hanging send to watch the checks catch an overlap.`,
		Example: `  outboxlab backoff-on-queue-timeline
  outboxlab backoff-on-queue-timeline --time-budget 5m      # no time budget runs out: not exercised
  outboxlab backoff-on-queue-timeline --visibility-timeout 20s   # shorter than a hang: exit 1`,
		// The AFTER design switched off: its consumers hold the message through the backoff.
		FailsWith: []string{"--backoff-on-queue=false"},
		// No retry: nothing is put back on the queue, no backoff to work around.
		NotExercisedWith: []string{"--max-attempts", "1"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindVisibility(fs, true) },
	})
}

// The AFTER design's checks, by name.
const (
	checkQueueNoOverlap   = "no two consumers ever hold one message"
	checkQueueOnce        = "no notification goes out twice"
	checkQueueNoHold      = "no consumer holds a message through a backoff"
	checkQueueOtherWork   = "consumers do other work while messages back off"
	checkQueueRetryBudget = "the retry budget is enforced"
	checkQueueTimeBudget  = "the time budget is enforced"
	checkQueueDrained     = "queue drained"
)

// queueSide judges the AFTER run the way heldSide judges the BEFORE one.
func (o *visibilityOptions) queueSide() pairSide[*pairRun] {
	return pairSide[*pairRun]{
		pass: verdictQueueHeld, fail: verdictQueueBroken,
		check: func(r *report.Report, _, after *pairRun) { o.queueChecks(r, after) },
		why:   func(failed map[string]bool, _, after *pairRun) []string { return o.whyQueueFailed(failed, after) },
	}
}

func (o *visibilityOptions) queueChecks(r *report.Report, run *pairRun) {
	f := run.read
	r.Check(checkQueueNoOverlap, f.overlaps == 0 && f.concurrent == 0,
		fmt.Sprintf("%s, %s", report.Plural(f.overlaps, "overlapping hold"), report.Plural(f.concurrent, "concurrent send")))
	r.Check(checkQueueOnce, f.duplicates == 0 && f.processedOnce == f.processedKeys,
		fmt.Sprintf("%d of %d processed sent exactly once, %s", f.processedOnce, f.processedKeys, report.Plural(f.duplicates, "extra delivery")))
	r.Check(checkQueueNoHold, f.heldSleep == 0 && f.multiSend == 0 && run.refused == 0,
		fmt.Sprintf("%s asleep holding, %s refused", clockText(f.heldSleep), report.Plural(run.refused, "transition")))
	if f.putBacks == 0 {
		r.NotExercised(checkQueueOtherWork, fmt.Sprintf("no message was put back on the queue: with --max-attempts %d "+
			"every failed send ended its message, so there was no backoff to work around; raise --max-attempts", o.MaxAttempts))
	} else {
		r.Check(checkQueueOtherWork, f.otherWork > 0,
			report.Plural(f.otherWork, "send")+" while a message they put back waited")
	}
	// A budget is exercised when a message reached it, or a send went past it.
	if len(f.retryExits) == 0 && f.overAttempts == 0 {
		r.NotExercised(checkQueueRetryBudget, fmt.Sprintf("no message ran out of its %s; lower --max-attempts",
			report.Plural(o.MaxAttempts, "attempt")))
	} else {
		r.Check(checkQueueRetryBudget, f.overAttempts == 0,
			fmt.Sprintf("%s beyond %s; out this way: %s", report.Plural(f.overAttempts, "send"), report.Plural(o.MaxAttempts, "attempt"), orNone(f.retryExits)))
	}
	if len(f.timeExits) == 0 && f.overTime == 0 {
		r.NotExercised(checkQueueTimeBudget, fmt.Sprintf("no message ran out of its %s time budget; lower --time-budget",
			clockText(o.TimeBudget)))
	} else {
		r.Check(checkQueueTimeBudget, f.overTime == 0,
			fmt.Sprintf("%s started after %s; out this way: %s", report.Plural(f.overTime, "send"), clockText(o.TimeBudget), orNone(f.timeExits)))
	}
	r.Check(checkQueueDrained, f.left == 0, fmt.Sprintf("%d pending or processing", f.left))
}

// whyQueueFailed says what these flags did to the AFTER checks that failed.
func (o *visibilityOptions) whyQueueFailed(failed map[string]bool, run *pairRun) []string {
	f := run.read
	var why []string
	switch {
	case len(failed) == 0:
		return nil
	case !o.OnQueue:
		return []string{"--backoff-on-queue=false switches the AFTER design off: its consumers sleep through\n" +
			"each backoff holding the message, like the BEFORE design"}
	case o.Visibility < o.Hang && (run.refused > 0 || f.overlaps > 0):
		send := fmt.Sprintf("a hanging send (--hang %s)", clockText(o.Hang))
		if o.Visibility < sendTime {
			send = fmt.Sprintf("a send (%s)", clockText(sendTime))
		}
		why = append(why, fmt.Sprintf("the --visibility-timeout of %s is shorter than %s: the lease runs\n"+
			"out during the send, another consumer claims the message, and the holder's transition is refused,\n"+
			"so no budget can dead-letter it and it goes round", clockText(o.Visibility), send))
		if run.capped {
			why[0] += fmt.Sprintf(" until the demo cap stopped the run at %s", clockText(o.horizon()))
		}
		for _, name := range []string{checkQueueNoOverlap, checkQueueNoHold, checkQueueRetryBudget, checkQueueTimeBudget,
			checkQueueDrained, checkQueueOnce} {
			delete(failed, name)
		}
	}
	if len(failed) > 0 {
		why = append(why, unexplained)
	}
	return why
}
