package governance

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const disabledName = "governance-dead-letter-disabled"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    disabledName,
		Family:  "governance",
		Kind:    report.Experiment,
		Summary: "DeadLetterOnMaxRetryAttempts=false: failures stay retryable past the threshold until a host policy ends them",
		Long: `Runs the drain with DeadLetterOnMaxRetryAttempts switched off (this scenario's
default; the documented default is true). GOV-001 fails every time: its failed
attempt MaxRetryAttempts is persisted as Failed with a next retry, and it keeps being
retried past the threshold, because the built-in drain has no other terminal
transition. The host therefore supplies one: after every pass a host review policy
quarantines any entry whose RetryCount has reached --host-review-after, in one
transaction with an audited remediation record, and never resets the retry history.
GOV-002 fails twice and is delivered, as usual. Set --host-review-after 0 to see what
happens without a host policy: the entry is still retrying when the demo cap stops
the run, and the check that asks for a host terminal policy fails.`,
		Example: `  outboxlab governance-dead-letter-disabled
  outboxlab governance-dead-letter-disabled --host-review-after 11 --max-retry-attempts 3`,
		FailsWith:        []string{"--host-review-after", "0"},
		NotExercisedWith: []string{"--max-retry-attempts", "100"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindDisabled(fs) },
	})
}

type disabledOptions struct {
	scenarios.Declared
	drain           *drainFlags
	HostReviewAfter int
}

func bindDisabled(fs *pflag.FlagSet) *disabledOptions {
	def := emission.DefaultOptions()
	def.DeadLetterOnMaxRetryAttempts = false
	o := &disabledOptions{}
	f := o.Declare(fs)
	o.drain = bindDrainFlags(f, def)
	f.Int(&o.HostReviewAfter, "host-review-after", 8, 0, 500, "host policy: quarantine an entry for manual review once its RetryCount reaches this (0: the host has no policy)")
	return o
}

// Validate refuses only what cannot run. A host review or a threshold the
// demo cap never lets the run reach is legal: the checks then say what the
// run did not show.
func (o *disabledOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	// Two drains of the two entries, each followed by a pass a day later.
	// The host's review can only end GOV-001 sooner.
	return o.drain.withinBudget(o.drain.entriesLoad(o.specs()).drains(2).add(load{span: 24 * time.Hour}))
}

func (o *disabledOptions) specs() []entrySpec {
	return []entrySpec{
		{Key: entryKey(1), Role: "a poison entry", Steps: []emission.Step{unavailable}},
		{Key: entryKey(2), Role: "transient failures", Steps: []emission.Step{timeout, timeout, emission.Deliver()}},
	}
}

// hostReview is the host's alternative terminal policy: quarantine for
// manual review, audited, retry history kept.
func (o *disabledOptions) hostReview(ctx context.Context, s *emission.Store, now time.Time) ([]string, error) {
	if o.HostReviewAfter == 0 {
		return nil, nil
	}
	entries, err := s.Entries(ctx)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, e := range entries {
		if e.Status.Terminal() || e.RetryCount < o.HostReviewAfter {
			continue
		}
		rem := emission.Remediation{Action: "quarantine-for-manual-review", Reviewer: "host-review-policy",
			Reason:   fmt.Sprintf("%d failed emission attempts with DeadLetterOnMaxRetryAttempts off", e.RetryCount),
			Approval: "standing rule GOV-OPS-7 (automatic hold, human review required)", Ticket: fmt.Sprintf("REV-%04d", e.ID)}
		if err := s.Quarantine(ctx, e.ID, now, rem); err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("%s  host  %s  RetryCount %d ≥ %d → QUARANTINED for manual review (%s)",
			clock.DayStamp(now), e.Key, e.RetryCount, o.HostReviewAfter, rem.Ticket))
	}
	return lines, nil
}

func (o *disabledOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, claim, err := driveBoth(ctx, env, driveSpec{flags: o.drain, entries: o.specs(), host: o.hostReview})
	if err != nil {
		return nil, err
	}
	host := fmt.Sprintf("Host      after every pass, quarantines for manual review a live entry with RetryCount ≥ %d\n"+
		"          (audited; history kept)", o.HostReviewAfter)
	if o.HostReviewAfter == 0 {
		host = "Host      no terminal policy of its own (--host-review-after 0)"
	}
	r := report.New(disabledName, report.Experiment)
	layout{name: disabledName, title: "Governance — dead-lettering off: the host must supply the terminal policy",
		specs: o.specs(), flags: o.drain, notes: []string{host}}.write(r, store, claim, env.Verbose)
	r.Section("Remediation log (claim drain; GovernanceRemediations)")
	writeRemediations(r, claim.remediations, claim.entries)
	o.checks(r, store, claim)
	return finish(r, "Checks", "PAST THE THRESHOLD THE ENTRY KEPT RETRYING; THE HOST'S AUDITED POLICY ENDED IT",
		"DEAD-LETTERING OFF WITHOUT A HOST TERMINAL POLICY HOLDING", disabledMetrics, claim), nil
}

// disabledMetrics add the entries the host's policy quarantined.
var disabledMetrics = withMetrics(scenarios.Metric[*driveRun]{
	Key: "quarantined", Value: func(r *driveRun) any { return countStatus(r, emission.Quarantined) }})
