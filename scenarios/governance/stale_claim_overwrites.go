package governance

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/dialect"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The BEFORE of the stale-claim pair; its AFTER is fenced_claim.go. The
// race both run is stale_race.go, their report stale_report.go.
const staleBefore = "governance-stale-claim-overwrites"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    staleBefore,
		Family:  "governance",
		Kind:    report.Before,
		Pair:    staleAfter,
		Summary: "BEFORE: without a claim-token check a stale worker's late write lands over a terminal row, a dead-letter too",
		Long: `Two workers drain one governance entry from the same database through two
connections, in real goroutines. Worker A claims GOV-001 (token 1) and calls the
provider, which takes longer than A's lease. The lease expires; worker B claims the
entry (token 2), emits it and marks it Delivered, clearing the claim. Then A's call
finally returns a timeout failure and A persists its transition the way a store
without claim validation does: by Id alone. The write lands over B's terminal row:
the delivered entry is Failed again, scheduled for another retry, and emitted a
second time; nothing refused or counted anything. With --prior-failures 4 A's late
failure is the threshold one, and a delivered entry is reported as a dead-letter.
The same race on GOV-002, which B dead-letters (the provider rejects it for good):
A's late write undoes the dead-letter, and the entry is emitted again.

The comparison table beside it runs the AFTER design on the same interleaving.`,
		Example: `  outboxlab governance-stale-claim-overwrites
  outboxlab governance-stale-claim-overwrites --prior-failures 4   # the late write dead-letters a delivered entry`,
		FailsWith:        []string{"--slow-emit", "20s"},
		NotExercisedWith: []string{"--slow-emit", "20s"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindStale(fs, false) },
	})
}

// staleOptions are the pair's parameters; both scenarios take all of them,
// since each report compares both designs on the same interleaving.
type staleOptions struct {
	scenarios.Declared
	after bool // this scenario's own design is the AFTER one

	drain         *drainFlags
	Lease         time.Duration
	SlowEmit      time.Duration
	PriorFailures int
	// ClaimCheck is the AFTER's safety mechanism: its writes carry the
	// claim. Switched off, its own run writes by Id alone.
	ClaimCheck bool
}

func bindStale(fs *pflag.FlagSet, after bool) *staleOptions {
	o := &staleOptions{after: after, ClaimCheck: after}
	f := o.Declare(fs)
	o.drain = bindDrainFlags(f, emission.DefaultOptions())
	f.Duration(&o.Lease, "lease", emission.DefaultLease, time.Millisecond, 24*time.Hour, "how long a claim owns the entry")
	f.Duration(&o.SlowEmit, "slow-emit", 45*time.Second, time.Millisecond, 24*time.Hour, "how long worker A's provider call takes; longer than --lease reproduces the race")
	f.Int(&o.PriorFailures, "prior-failures", 0, 0, 100, "RetryCount GOV-001 already carries (MaxRetryAttempts-1 makes A's late failure the threshold one)")
	if after {
		f.Bool(&o.ClaimCheck, "claim-check", true, "every write carries the claim (false: this design writes by Id alone, as the BEFORE does)")
	}
	return o
}

// Validate refuses only what cannot run: a provider call that answers
// inside the lease, or a history already at the threshold, is legal; the
// checks then say what the run did not show.
func (o *staleOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	// Per design: A's call, then B's delivery, or B's redelivery after A's
	// late failure and its retry delay.
	// Twice: the race on the delivered entry, then on the dead-lettered one.
	l := o.drain.entryLoad(o.spec())
	one := load{calls: l.calls + 1, span: addSat(addSat(o.Lease, o.SlowEmit), l.span)}.drains(2)
	d := o.drain.entryLoad(o.deadSpec())
	return o.drain.withinBudget(one.add(load{calls: d.calls + 1, span: addSat(addSat(o.Lease, o.SlowEmit), d.span)}.drains(2)))
}

// spec is the one entry both workers drain.
func (o *staleOptions) spec() entrySpec {
	return entrySpec{Key: entryKey(1), Role: "claimed by A, then by B", Steps: []emission.Step{timeout, emission.Deliver()}, PriorFailures: o.PriorFailures}
}

// deadSpec is the entry of the second race: the same interleaving, but the
// provider rejects B's call for good, so the current owner writes a dead-letter.
func (o *staleOptions) deadSpec() entrySpec {
	return entrySpec{Key: entryKey(2), Role: "claimed by A, then dead-lettered by B",
		Steps: []emission.Step{timeout, rejected}, PriorFailures: o.PriorFailures}
}

// rejected is the provider's terminal answer to B in the dead-letter race.
var rejected = emission.Reject("provider.payload_rejected", "payload failed provider validation")

func (o *staleOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	return o.pairReport(env).Run(ctx, env)
}

// staleDesign is one design's two races on the same interleaving: the main
// one (B delivers) and the dead-letter one (B's write is a dead-letter).
type staleDesign struct{ main, dead *staleRun }

// driveDesign runs both races of one design (the AFTER one, with the claim
// check, when after is set; --claim-check=false switches the check off in
// the AFTER scenario's own run): the main race at location, the dead-letter
// race on a database of its own.
func (o *staleOptions) driveDesign(ctx context.Context, env scenarios.Env, database dialect.Database, after bool) (*staleDesign, error) {
	fenced := after && (o.ClaimCheck || !o.after)
	main, err := o.race(ctx, database, fenced)
	if err != nil {
		return nil, err
	}
	db, what := "partner-dead-letter", "its dead-letter race"
	if after == o.after { // the scenario's own design
		db, what = "dead-letter", "the dead-letter race"
	}
	deadDB, err := env.DB(ctx, db)
	if err != nil {
		return nil, err
	}
	dead, err := o.raceOn(ctx, deadDB, fenced, o.deadSpec())
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", what, err)
	}
	return &staleDesign{main: main, dead: dead}, nil
}

// slowEmitter holds worker A's one provider call open until the scenario
// releases it: the call is made (and ledgered) at once, its answer arrives late.
type slowEmitter struct {
	inner   emission.Emitter
	entered chan struct{}
	release chan struct{}
}

func (s *slowEmitter) Emit(ctx context.Context, e emission.Entry, now time.Time) (emission.Result, error) {
	res, err := s.inner.Emit(ctx, e, now)
	close(s.entered)
	select {
	case <-s.release:
		return res, err
	case <-ctx.Done():
		return emission.Result{}, ctx.Err()
	}
}
