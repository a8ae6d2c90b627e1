package governance

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	gov "outboxlab/core/governance"
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
		Bind: func(fs *pflag.FlagSet) scenarios.Options { return bindDeferred(fs) },
	})
}

type deferredOptions struct {
	drain      *drainFlags
	Deferrals  int
	Pendings   int
	DeferAfter time.Duration
}

func bindDeferred(fs *pflag.FlagSet) *deferredOptions {
	o := &deferredOptions{drain: bindDrainFlags(fs, gov.DefaultOptions())}
	fs.IntVar(&o.Deferrals, "deferrals", 7, "deferred results GOV-001 gets before it is delivered")
	fs.IntVar(&o.Pendings, "pendings", 3, "pending results GOV-002 gets before it is delivered")
	fs.DurationVar(&o.DeferAfter, "defer-after", 2*time.Second, "how long the emitter asks the drain to wait after a pending or deferred result")
	return o
}

func (o *deferredOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	switch {
	case o.Deferrals < 0 || o.Deferrals > maxAttemptsLimit:
		return fmt.Errorf("--deferrals must be between 0 and %d, got %d", maxAttemptsLimit, o.Deferrals)
	case o.Pendings < 0 || o.Pendings > maxAttemptsLimit:
		return fmt.Errorf("--pendings must be between 0 and %d, got %d", maxAttemptsLimit, o.Pendings)
	case o.DeferAfter <= 0:
		return fmt.Errorf("--defer-after must be positive, got %s", o.DeferAfter)
	}
	return nil
}

// interleavedDeferrals is how many deferrals GOV-003 gets between its first failures.
const interleavedDeferrals = 3

func (o *deferredOptions) specs() []entrySpec {
	deferred := gov.Defer(o.DeferAfter)
	var mixed []gov.Step
	for range interleavedDeferrals {
		mixed = append(mixed, deferred, unavailable)
	}
	return []entrySpec{
		{Key: entryKey(1), Role: "deferred more often than failures are allowed", Steps: append(repeat(o.Deferrals, deferred), gov.Deliver())},
		{Key: entryKey(2), Role: "pending results", Steps: append(repeat(o.Pendings, gov.Pend(o.DeferAfter)), gov.Deliver())},
		{Key: entryKey(3), Role: "deferrals between failures", Steps: append(mixed, unavailable)},
	}
}

func (o *deferredOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, claim, err := driveBoth(ctx, env.DBPath, env.Dir, driveSpec{flags: o.drain, entries: o.specs()})
	if err != nil {
		return nil, err
	}
	r := report.New(deferredName, report.Experiment)
	layout{name: deferredName, title: "Governance — pending and deferred results do not consume the threshold",
		specs: o.specs(), flags: o.drain,
		notes: []string{fmt.Sprintf("Deferral  a pending or deferred result asks the drain to come back after %s", o.DeferAfter)},
	}.write(r, store, claim)
	o.checks(r, store, claim)
	r.Checks("Checks")
	r.Verdict("DEFERRALS WAIT, ONLY FAILURES COUNT TOWARD THE THRESHOLD ✅", "DEFERRED RESULTS WERE NOT KEPT APART FROM FAILURES — SEE THE FAILED CHECKS ❌")
	recordMetrics(r, claim, o.drain)
	return r, nil
}

func (o *deferredOptions) checks(r *report.Report, store, claim *driveRun) {
	runs := []*driveRun{store, claim}
	checkSameOutcome(r, store, claim)
	waits, kept, pendings, onTime := 0, 0, 0, 0
	for _, run := range runs {
		for i, ev := range run.events {
			k := ev.Result.Kind
			if ev.Kind != gov.Handled || (k != gov.ResultDeferred && k != gov.ResultPending) {
				continue
			}
			waits++
			t := ev.Transition
			if t.To == gov.Deferred && t.RetryCount == ev.Entry.RetryCount {
				kept++
			}
			if k == gov.ResultPending && t.To == gov.Deferred {
				pendings++
			}
			if next, ok := nextEmission(run, i); t.NextRetryAt.Equal(t.At.Add(ev.Result.RetryAfter)) && ok &&
				!next.Before(t.NextRetryAt) && next.Sub(t.NextRetryAt) <= gov.WakeupSlack {
				onTime++
			}
		}
	}
	r.Check("pending and deferred results never increment RetryCount", waits > 0 && kept == waits,
		fmt.Sprintf("%d of %d pending/deferred results (both modes) left RetryCount unchanged and the entry Deferred", kept, waits))
	r.Check("pending is kept deferred like deferred", pendings == 2*o.Pendings,
		fmt.Sprintf("%d pending results (both modes) persisted as Deferred, %d expected", pendings, 2*o.Pendings))
	r.Check("deferred entries stay eligible and come back when the emitter asked", waits > 0 && onTime == waits,
		fmt.Sprintf("%d of %d re-emitted at NextRetryAtUtc (= result time + %s) + at most 1 ms", onTime, waits, o.DeferAfter))

	g1, g3 := claim.entry(entryKey(1)), claim.entry(entryKey(3))
	r.Check("deferrals never consume the threshold", g1.Status == gov.Delivered && g1.RetryCount == 0,
		fmt.Sprintf("%s deferred %d times (MaxRetryAttempts %d) → %s with RetryCount %d", g1.Key, o.Deferrals, o.drain.MaxRetryAttempts, g1.Status, g1.RetryCount))
	n3, f3 := claim.emitter.CallsFor(g3.Key), failures(claim, g3.Key)
	r.Check("only failed attempts reach the threshold", g3.Status == gov.DeadLettered && g3.RetryCount == o.drain.MaxRetryAttempts && f3 == o.drain.MaxRetryAttempts,
		fmt.Sprintf("%s %s on emission %d: %s + %d deferrals, RetryCount %d/%d",
			g3.Key, g3.Status, n3, report.Plural(f3, "failure"), n3-f3, g3.RetryCount, o.drain.MaxRetryAttempts))
	checkNotDelivery(r, runs)
}

// nextEmission returns when the entry of run.events[i] was next emitted.
func nextEmission(run *driveRun, i int) (time.Time, bool) {
	key := run.events[i].Entry.Key
	for _, ev := range run.events[i+1:] {
		if (ev.Kind == gov.Handled || ev.Kind == gov.Refused) && ev.Entry.Key == key {
			return ev.EmittedAt, true
		}
	}
	return time.Time{}, false
}
