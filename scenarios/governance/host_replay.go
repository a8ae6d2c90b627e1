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

const replayName = "governance-host-replay"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    replayName,
		Family:  "governance",
		Kind:    report.Experiment,
		Summary: "dead-letters are incidents: the host confirms, classifies the cause, fixes it, then replays authorized, audited, batched",
		Long: `A provider outage dead-letters every entry at the threshold, and the host opens one
incident per dead-letter. The drain never replays them: a pass an hour later
selects nothing. At review the host follows the documented runbook: it confirms
the store is healthy and every terminal transition was persisted, classifies the
cause (provider unavailability, malformed data, schema drift, authorization,
classification policy, credentials, throttling, application defect) from the rows,
and records the fix; a replay without a recorded cause and fix is refused and
writes nothing, and so is one without an explicit authorization; an
authorized replay creates a new entry that references the original (which keeps
its DeadLettered status, terminal reason, retry count and history), records the
reviewer, reason, approval, ticket and affected window, and runs under claims of
its own; entries are released in controlled batches, judged by acme-audit's
capacity (--provider-capacity emissions in any --provider-window, healthy again
after the outage; its throttle ledger records every emission, and one it
throttles fails the batching: --replay-batch 10 or --batch-interval 0s floods it);
and an incident is closed only when the provider confirms a receipt for the
replay. One replay (--rejected-key) is rejected by the provider again, so its
incident stays open. --close-without-receipt plays a careless host that closes
every incident once its replay ran, citing the ticket instead of the provider's
receipt: the receipt check fails.`,
		Example: `  outboxlab governance-host-replay
  outboxlab governance-host-replay --replay-batch 1         # one entry at a time
  outboxlab governance-host-replay --rejected-key none      # every incident closes`,
		FailsWith:        []string{"--close-without-receipt", "--replay-batch", "10"},
		NotExercisedWith: []string{"--dead-letter-on-max-retry-attempts=false"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindReplay(fs) },
	})
}

// maxReplayEntries bounds --entries: every entry fails up to the threshold in the outage.
const maxReplayEntries = 10

type replayOptions struct {
	scenarios.Declared
	drain       *drainFlags
	Entries     int
	ReplayBatch int
	RejectedKey string
	ReviewAfter time.Duration
	Interval    time.Duration
	// Capacity and Window are acme-audit's, healthy again: at most Capacity
	// emissions in any Window, the rest throttled. A property of the
	// provider, which the batching is judged against.
	Capacity int
	Window   time.Duration
	// CloseWithoutReceipt plays a careless host that closes every incident
	// once its replay ran, citing the ticket instead of the provider's receipt.
	CloseWithoutReceipt bool
	verbose             bool // --verbose: every line of the outage and the full remediation log
	// unseededRejected is a default --rejected-key beyond --entries: no
	// replay is rejected, and the report says why.
	unseededRejected string
}

func bindReplay(fs *pflag.FlagSet) *replayOptions {
	o := &replayOptions{}
	f := o.Declare(fs)
	o.drain = bindDrainFlags(f, emission.DefaultOptions())
	f.Int(&o.Entries, "entries", 5, 1, maxReplayEntries, "entries caught in the provider outage, GOV-001 onwards")
	f.Int(&o.ReplayBatch, "replay-batch", 2, 1, maxReplayEntries, "entries the host releases for replay at a time")
	f.String(&o.RejectedKey, "rejected-key", entryKey(3), scenarios.WordLength, `entry whose replay the provider rejects again ("none" for none)`)
	f.Duration(&o.ReviewAfter, "review-after", time.Hour, time.Minute, 30*24*time.Hour, "when, after the run starts, the host reviews and replays")
	f.Duration(&o.Interval, "batch-interval", time.Minute, 0, 24*time.Hour, "pause between two replay batches, so the provider is not flooded again")
	f.Int(&o.Capacity, "provider-capacity", 2, 1, 1000,
		"acme-audit, healthy again, accepts at most this many emissions in any --provider-window; more are throttled")
	f.Duration(&o.Window, "provider-window", time.Minute, time.Millisecond, 24*time.Hour, "the window of --provider-capacity")
	f.Bool(&o.CloseWithoutReceipt, "close-without-receipt", false,
		"a careless host: close every incident once its replay ran, citing the ticket instead of the provider's receipt")
	return o
}

func (o *replayOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	key, err := scenarios.CheckKey("rejected-key", o.RejectedKey, entryKeys(o.Entries)...)
	if err != nil {
		return err
	}
	o.RejectedKey = key
	if o.RejectedKey != "" && !validKey(o.RejectedKey, o.Entries) {
		// A key named on the command line must be seeded; the default key
		// beyond a smaller --entries just means no replay is rejected.
		if o.drain.flags.FlagSet().Changed("rejected-key") {
			return fmt.Errorf("--rejected-key %q is not a seeded entry (%s..%s)", o.RejectedKey, entryKey(1), entryKey(o.Entries))
		}
		o.unseededRejected, o.RejectedKey = o.RejectedKey, ""
	}
	return o.drain.withinBudget(o.load())
}

// load is the outage drain, then, from the review on, one call per replay in
// batches an interval apart; the review waits for the outage drain to end.
func (o *replayOptions) load() load {
	outage := o.drain.entriesLoad(o.specs())
	batches := (o.Entries + o.ReplayBatch - 1) / o.ReplayBatch
	replays := load{calls: o.Entries, span: addSat(mulSat(o.Interval, batches-1), mulSat(wakeupSlack, o.Entries))}
	return load{calls: outage.calls, span: max(outage.span, o.ReviewAfter)}.add(replays)
}

// entryKeys are the keys of the n seeded entries, GOV-001 onwards.
func entryKeys(n int) []string {
	keys := make([]string, 0, max(n, 0))
	for i := 1; i <= n; i++ {
		keys = append(keys, entryKey(i))
	}
	return keys
}

func validKey(key string, n int) bool {
	for i := 1; i <= n; i++ {
		if entryKey(i) == key {
			return true
		}
	}
	return false
}

func (o *replayOptions) specs() []entrySpec {
	specs := make([]entrySpec, o.Entries)
	for i := range specs {
		specs[i] = entrySpec{Key: entryKey(i + 1), Role: "caught in the provider outage", Steps: []emission.Step{unavailable}}
	}
	return specs
}

// authorization is the host's replay decision for the outage window: no
// cause or fix until the runbook has recorded them.
func (o *replayOptions) authorization(from, to time.Time) emission.Remediation {
	return emission.Remediation{Reviewer: "ops-oncall (r.okafor)",
		Reason:   "acme-audit outage; provider healthy again, payloads re-validated",
		Approval: "CAB-2026-0117", Ticket: "INC-4471", AffectedFrom: from, AffectedTo: to}
}

// causeOf is the runbook's classification of a repeated failure, from the
// last error code the dead-lettered row recorded ("" when it names none).
func causeOf(code string) emission.Cause {
	switch code {
	case "provider.unavailable", "provider.timeout":
		return "provider unavailability"
	case "provider.throttled":
		return "throttling"
	case "provider.schema_rejected":
		return "schema drift"
	case "provider.payload_rejected":
		return "malformed data"
	case "provider.unauthorized":
		return "authorization"
	case "provider.credentials_expired":
		return "credentials"
	case "provider.classification_denied":
		return "classification policy"
	case emission.CodeUnexpectedError, emission.CodePanic, emission.CodeUnknownResult:
		return "application defect"
	}
	return ""
}

// fixFor is what the host corrected for a cause before replaying.
func fixFor(c emission.Cause) string {
	if c == "provider unavailability" {
		return "acme-audit healthy again (status page green, a test emission acknowledged)"
	}
	return "corrected under the incident's change ticket"
}

func (o *replayOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	o.verbose = env.Verbose
	run, err := o.replay(ctx, env.Database)
	if err != nil {
		return nil, err
	}
	return o.render(run, env.Verbose), nil
}
