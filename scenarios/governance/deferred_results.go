package governance

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const deferredName = "governance-deferred-results"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    deferredName,
		Family:  "governance",
		Kind:    report.Experiment,
		Summary: "pending and deferred results stay deferred and never consume the failed-attempt threshold",
		Long: `Three entries whose provider answers "not yet": GOV-001 is deferred more times than
MaxRetryAttempts allows failures, then delivered; GOV-002 is pending three times, then
delivered; GOV-003 alternates deferrals with failures and then keeps failing. A pending
or deferred result leaves RetryCount alone and reschedules the entry when the emitter
asks, so GOV-001 is delivered with RetryCount 0 however often it was deferred, and
GOV-003 is dead-lettered on its MaxRetryAttempts-th failure, not on its
MaxRetryAttempts-th emission. Both drain modes run; the checks compare them.`,
		Example: `  outboxlab governance-deferred-results
  outboxlab governance-deferred-results --deferrals 20        # still RetryCount 0, still delivered
  outboxlab governance-deferred-results --max-retry-attempts 3 --defer-after 10s`,
		FailsWith:        []string{"--dead-letter-on-max-retry-attempts=false"},
		NotExercisedWith: []string{"--deferrals", "0", "--pendings", "0"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindDeferred(fs) },
	})
}

type deferredOptions struct {
	scenarios.Declared
	drain      *drainFlags
	Deferrals  int
	Pendings   int
	DeferAfter time.Duration
}

func bindDeferred(fs *pflag.FlagSet) *deferredOptions {
	o := &deferredOptions{}
	f := o.Declare(fs)
	o.drain = bindDrainFlags(f, emission.DefaultOptions())
	f.Int(&o.Deferrals, "deferrals", 7, 0, 200, "deferred results GOV-001 gets before it is delivered")
	f.Int(&o.Pendings, "pendings", 3, 0, 200, "pending results GOV-002 gets before it is delivered")
	f.Duration(&o.DeferAfter, "defer-after", 2*time.Second, time.Millisecond, 24*time.Hour, "how long the emitter asks the drain to wait after a pending or deferred result")
	return o
}

func (o *deferredOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	// Two drains of the three entries, each followed by a pass a day later.
	return o.drain.withinBudget(o.drain.entriesLoad(o.specs()).drains(2).add(load{span: 24 * time.Hour}))
}

// interleavedDeferrals is how many deferrals GOV-003 gets between its first failures.
const interleavedDeferrals = 3

func (o *deferredOptions) specs() []entrySpec {
	deferred := emission.Defer(o.DeferAfter)
	var mixed []emission.Step
	for range interleavedDeferrals {
		mixed = append(mixed, deferred, unavailable)
	}
	return []entrySpec{
		{Key: entryKey(1), Role: "deferred more often than failures are allowed", Steps: append(repeat(o.Deferrals, deferred), emission.Deliver())},
		{Key: entryKey(2), Role: "pending results", Steps: append(repeat(o.Pendings, emission.Pend(o.DeferAfter)), emission.Deliver())},
		{Key: entryKey(3), Role: "deferrals between failures", Steps: append(mixed, unavailable)},
	}
}

func (o *deferredOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, claim, err := driveBoth(ctx, env, driveSpec{flags: o.drain, entries: o.specs()})
	if err != nil {
		return nil, err
	}
	r := report.New(deferredName, report.Experiment)
	layout{name: deferredName, title: "Governance — pending and deferred results do not consume the threshold",
		specs: o.specs(), flags: o.drain,
		notes: []string{fmt.Sprintf("Deferral  a pending or deferred result asks the drain to come back after %s", o.DeferAfter)},
	}.write(r, store, claim, env.Verbose)
	o.checks(r, store, claim)
	return finish(r, "Checks", "DEFERRALS WAIT, ONLY FAILURES COUNT TOWARD THE THRESHOLD",
		"DEFERRALS AND FAILURES DID NOT END AS STATED", drainMetrics, claim), nil
}

func (o *deferredOptions) checks(r *report.Report, store, claim *driveRun) {
	runs := []*driveRun{store, claim}
	checkSameOutcome(r, store, claim)
	w := scanWaits(runs)
	waits, pendings, counted, notDeferred, late := w.waits, w.pendings, w.counted, w.notDeferred, w.late
	const noWaits = "no emission was pending or deferred: a --deferrals or --pendings above 0"
	if waits == 0 {
		r.NotExercised("pending and deferred results never increment RetryCount", noWaits)
	} else {
		detail := "every pending or deferred result (both modes) left RetryCount unchanged and the entry Deferred"
		if len(counted) > 0 {
			detail = "a pending or deferred result changed RetryCount or left the entry not Deferred: " + allShown(runs, counted)
		}
		r.Check("pending and deferred results never increment RetryCount", len(counted) == 0, detail)
	}
	if o.Pendings == 0 {
		r.NotExercised("pending is kept deferred like deferred", "GOV-002 got no pending result (--pendings 0): a --pendings above 0")
	} else {
		detail := fmt.Sprintf("every pending result of %s's script persisted as Deferred (both modes)", entryKey(2))
		switch {
		case len(notDeferred) > 0:
			detail = "pending results not persisted as Deferred: " + allShown(runs, notDeferred)
		case pendings != 2*o.Pendings:
			detail = fmt.Sprintf("%s got more or fewer pending results than its script holds", entryKey(2))
		}
		r.Check("pending is kept deferred like deferred", pendings == 2*o.Pendings && len(notDeferred) == 0, detail)
	}
	if waits == 0 {
		r.NotExercised("deferred entries stay eligible and come back when the emitter asked", noWaits)
	} else {
		rule := fmt.Sprintf("at NextRetryAtUtc (= result time + %s) + at most 1 ms", o.DeferAfter)
		detail := "every pending or deferred entry (both modes) re-emitted " + rule
		if len(late) > 0 {
			detail = "not re-emitted " + rule + ": " + allShown(runs, late)
		}
		r.Check("deferred entries stay eligible and come back when the emitter asked", len(late) == 0, detail)
	}

	g1, g3 := claim.entry(entryKey(1)), claim.entry(entryKey(3))
	deferrals := 0
	for _, e := range claim.emissions(g1.Key) {
		if e.kind() == emission.ResultDeferred {
			deferrals++
		}
	}
	if deferrals == 0 {
		r.NotExercised("deferrals never consume the threshold", fmt.Sprintf("%s was never deferred (--deferrals 0): "+
			"a --deferrals of %d or more defers it past MaxRetryAttempts", g1.Key, o.drain.MaxRetryAttempts))
	} else {
		r.Check("deferrals never consume the threshold", g1.Status == emission.Delivered && g1.RetryCount == 0,
			fmt.Sprintf("%s deferred %s (MaxRetryAttempts %d) → %s with RetryCount %d", g1.Key, report.Plural(deferrals, "time"), o.drain.MaxRetryAttempts, g1.Status, g1.RetryCount))
	}
	n3, f3 := claim.emitter.CallsFor(g3.Key), claim.failedCalls(g3.Key)
	r.Check("only failed attempts reach the threshold", g3.Status == emission.DeadLettered && g3.RetryCount == o.drain.MaxRetryAttempts && f3 == o.drain.MaxRetryAttempts,
		fmt.Sprintf("%s %s on emission %d: %s + %s, RetryCount %d/%d",
			g3.Key, g3.Status, n3, report.Plural(f3, "failure"), report.Plural(n3-f3, "deferral"), g3.RetryCount, o.drain.MaxRetryAttempts))
	checkNotDelivery(r, runs)
}

// waitScan is what the runs' pending and deferred results left: how many
// there were, and the keys whose persisted rows break each rule.
type waitScan struct {
	waits, pendings            int
	counted, notDeferred, late keyList
}

// scanWaits reads every pending or deferred result of the runs against
// what was persisted for it and when the entry came back.
func scanWaits(runs []*driveRun) waitScan {
	// The ledger says which calls were pending or deferred and what they
	// asked; the log and the rows say what was persisted; the next ledger
	// call says when the entry came back.
	var w waitScan
	for _, run := range runs {
		for _, key := range run.keys() {
			ems := run.emissions(key)
			for j, e := range ems {
				k := e.kind()
				if k != emission.ResultDeferred && k != emission.ResultPending {
					continue
				}
				w.waits++
				row, deferred := e.row, e.logged && e.log.To == emission.Deferred && e.row.Status == emission.Deferred
				if !deferred || e.log.RetryCount != e.before || row.RetryCount != e.before {
					w.counted.add(key)
				}
				if k == emission.ResultPending {
					w.pendings++
					if !deferred {
						w.notDeferred.add(key)
					}
				}
				onTime := false
				if j+1 < len(ems) && row.NextRetryAt.Equal(row.UpdatedAt.Add(e.call.Step.Result.RetryAfter)) {
					next := ems[j+1].call.At
					onTime = !next.Before(row.NextRetryAt) && next.Sub(row.NextRetryAt) <= wakeupSlack
				}
				if !onTime {
					w.late.add(key)
				}
			}
		}
	}
	return w
}
