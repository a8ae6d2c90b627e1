package governance

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const thresholdName = "governance-threshold"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    thresholdName,
		Family:  "governance",
		Kind:    report.Experiment,
		Summary: "one threshold policy, two drain modes: failed and retryable-failure both count, then a stable dead-letter",
		Long: `Seeds six governance entries, one per emitter behaviour (delivered; throttled
twice (retryable-failure), then failed every time; an unexpected emitter error every time; a panic twice, then delivered; failed
four times, then delivered; a provider-returned terminal dead-letter), twice, in two
databases. One database is drained by the plain store drain (select due entries,
write by Id), the other by the claim/lease drain (claim with a lease and a fencing
token, owner-checked writes). Both apply the same threshold policy, evaluated
before the transition is persisted: next failed attempt < MaxRetryAttempts → Failed
(or RetryableFailure, for a retryable-failure result: both are failed attempts
and both count) with a scheduled retry; next failed attempt ≥ MaxRetryAttempts → DeadLettered with
the stable reason code and message, no next retry timestamp, claim cleared.
Errors and panics count as failures and never crash the drain; a provider's own
dead-letter is terminal at once. The checks compare the two modes entry by entry.`,
		Example: `  outboxlab governance-threshold
  outboxlab governance-threshold --max-retry-attempts 8          # the poison entries dead-letter at 8
  outboxlab governance-threshold --max-retry-attempts 4          # GOV-005's fourth failure is now the threshold
  outboxlab governance-threshold --dead-letter-reason-code acme.poison_message`,
		FailsWith:        []string{"--dead-letter-on-max-retry-attempts=false"},
		NotExercisedWith: []string{"--max-retry-attempts", "1"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindThreshold(fs) },
	})
}

type thresholdOptions struct {
	scenarios.Declared
	drain *drainFlags
	// RecoveringFailures is how many times GOV-005 fails before it is delivered.
	RecoveringFailures int
	// Panics is how many times the emitter panics on GOV-004 before delivering it.
	Panics int
}

func bindThreshold(fs *pflag.FlagSet) *thresholdOptions {
	o := &thresholdOptions{}
	f := o.Declare(fs)
	o.drain = bindDrainFlags(f, emission.DefaultOptions())
	f.Int(&o.RecoveringFailures, "recovering-failures", 4, 0, 1000, "failures GOV-005 suffers before it is delivered")
	f.Int(&o.Panics, "panics", 2, 0, 1000, "times the emitter panics on GOV-004 before delivering it")
	return o
}

func (o *thresholdOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	// Two drains of the six entries, each followed by a pass a day later.
	return o.drain.withinBudget(o.drain.entriesLoad(o.specs()).drains(2).add(load{span: 24 * time.Hour}))
}

// specs are the six entries, one per emitter behaviour.
func (o *thresholdOptions) specs() []entrySpec {
	return []entrySpec{
		{Key: entryKey(1), Role: "a successful emission", Steps: []emission.Step{emission.Deliver()}},
		{Key: entryKey(2), Role: "a poison entry: throttled, then failed", Steps: []emission.Step{throttled, throttled, unavailable}},
		{Key: entryKey(3), Role: "unexpected emitter errors", Steps: []emission.Step{emission.Throw("emitter: connection reset by peer")}},
		{Key: entryKey(4), Role: "emitter panics, then recovers", Steps: append(repeat(o.Panics, emission.Crash("nil map in provider SDK")), emission.Deliver())},
		{Key: entryKey(5), Role: "transient failures below the threshold", Steps: append(repeat(o.RecoveringFailures, timeout), emission.Deliver())},
		{Key: entryKey(6), Role: "provider-returned terminal dead-letter", Steps: []emission.Step{emission.Reject("provider.payload_rejected", "schema validation failed")}},
	}
}

func (o *thresholdOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, claim, err := driveBoth(ctx, env, driveSpec{flags: o.drain, entries: o.specs()})
	if err != nil {
		return nil, err
	}
	return o.render(store, claim, env.Verbose), nil
}
