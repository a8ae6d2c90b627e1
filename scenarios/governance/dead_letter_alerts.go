package governance

import (
	"context"
	"outboxlab/core/clock"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const alertsName = "governance-dead-letter-alerts"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    alertsName,
		Family:  "governance",
		Kind:    report.Experiment,
		Summary: "the host makes dead-letters visible: a counter, one event per transition, a warning at MaxRetryAttempts-1, no secrets",
		Long: `The drain records a stable terminal state; the host must make it visible. Five
entries across two providers, three tenants and two regions go through the claim
drain with the host's alert sink attached: two poison entries on the same provider
(the repeated reason code raises its own alert), one that fails up to
MaxRetryAttempts-1 and then recovers, one the provider dead-letters itself, and one
that is delivered. The host keeps a dead-letter counter per reason code and
provider, logs one event per dead-letter transition with minimized metadata (entry
id, correlation id, decision receipt id, provider, region, tenant, workload, reason
code, attempt) and warns when an entry's retry count reaches MaxRetryAttempts-1.
Every payload carries a protected prompt and a fake access token; the checks prove
they are in the database and nowhere in the alerts, the terminal or the report.
--verbose-alerts plays a careless host that logs payloads: the secret leaks and the
check fails.`,
		Example: `  outboxlab governance-dead-letter-alerts
  outboxlab governance-dead-letter-alerts --max-retry-attempts 3   # warnings at 2, dead-letters at 3`,
		FailsWith:        []string{"--verbose-alerts"},
		NotExercisedWith: []string{"--dead-letter-on-max-retry-attempts=false"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindAlerts(fs) },
	})
}

type alertsOptions struct {
	scenarios.Declared
	drain *drainFlags
	// VerboseAlerts plays a careless host whose alert lines carry the payload.
	VerboseAlerts bool
}

func bindAlerts(fs *pflag.FlagSet) *alertsOptions {
	o := &alertsOptions{}
	f := o.Declare(fs)
	o.drain = bindDrainFlags(f, emission.DefaultOptions())
	f.Bool(&o.VerboseAlerts, "verbose-alerts", false, "a careless host: alert lines also carry the entry's payload")
	return o
}

// Validate refuses only what cannot run. MaxRetryAttempts 1 is legal: the
// first failure is then the threshold, and the warning check says that no
// warning can come before a dead-letter.
func (o *alertsOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	// One claim drain of the five entries, followed by a pass a day later.
	return o.drain.withinBudget(o.drain.entriesLoad(o.specs()).add(load{span: 24 * time.Hour}))
}

func (o *alertsOptions) specs() []entrySpec {
	near := o.drain.MaxRetryAttempts - 1
	return []entrySpec{
		{Key: entryKey(1), Role: "poison", Steps: []emission.Step{unavailable}},
		{Key: entryKey(2), Role: "poison, same provider and reason", Tenant: "tenant-b", Steps: []emission.Step{unavailable}},
		{Key: entryKey(3), Role: "fails to MaxRetryAttempts-1, then recovers", Provider: "northwind-ledger", Region: "us-east-1",
			Workload: "fraud-screening", Steps: append(repeat(near, timeout), emission.Deliver())},
		{Key: entryKey(4), Role: "the provider dead-letters it", Provider: "northwind-ledger", Region: "us-east-1", Tenant: "tenant-c",
			Workload: "fraud-screening", Steps: []emission.Step{emission.Reject("provider.schema_rejected", "payload failed provider schema validation")}},
		{Key: entryKey(5), Role: "delivered", Tenant: "tenant-b", Steps: []emission.Step{emission.Deliver()}},
	}
}

func (o *alertsOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	run, err := drive(ctx, env.Database, driveSpec{mode: emission.ClaimMode, flags: o.drain, entries: o.specs()})
	if err != nil {
		return nil, err
	}
	r := report.New(alertsName, report.Experiment)
	r.Title("Governance — the host makes dead-letters visible, without secrets")
	r.Linef("Scenario  %s (%s)", alertsName, report.Experiment)
	writeSource(r)
	r.Linef("Entries   %d governance entries on 2 providers, 3 tenants, 2 regions;", len(o.specs()))
	r.Line("          every payload holds a protected prompt and a fake access token")
	for _, l := range o.drain.describe() {
		r.Line(l)
	}
	r.Linef("Drain     claim drain, claims for %s; the host's alert sink observes every transition", emission.DefaultLease)
	if o.VerboseAlerts {
		r.Line("Host      CARELESS (--verbose-alerts): its alert lines also carry the entry's payload")
	} else {
		r.Line("Host      one event per dead-letter, a repeat alert per reason code and provider,")
		r.Line("          a warning at MaxRetryAttempts-1; minimized metadata only")
	}
	writeStart(r, run.started)

	r.Section("Emitter scripts")
	rows := make([][]string, 0, len(run.entries))
	meta := make([][]string, 0, len(run.entries))
	for i, s := range o.specs() {
		e := run.entries[i]
		rows = append(rows, []string{s.Key, s.Role, run.emitter.ScriptText(s.Key)})
		meta = append(meta, []string{s.Key, e.Provider, e.Region, e.Tenant, e.Workload, e.CorrelationID, e.DecisionReceiptID})
	}
	r.Table([]string{"Entry", "Exercises", "Emitter script (last step repeats)"}, rows)
	if env.Verbose {
		r.Section("Entry metadata an alert may carry (minimized; the payload never)")
		r.Table([]string{"Entry", "Provider", "Region", "Tenant", "Workload", "Correlation", "Receipt"}, meta)
	}
	story := run.story
	if env.Verbose {
		story = run.timeline
	}
	writeTimeline(r, "Timeline — claim drain (scenario clock)", story, timelineLegend(o.drain.MaxRetryAttempts, hadUnexpected(run.events), !env.Verbose)...)
	timelineFigure(r, "timeline", "Emissions of the claim drain", run.events, run.started, run.ended)
	if env.Verbose {
		r.Section("Entries (GovernanceOutboxEntries; payloads never printed)")
		writeEntryLedger(r, run.entries)
	}
	lines := o.hostLines(run)
	if env.Verbose {
		r.Section("Host alerts, as logged")
		for _, l := range lines {
			r.Line(wrapFields(l, alertIndent))
		}
	} else {
		r.Section("Host alerts (each line also carries correlation, receipt, provider, region, tenant, workload)")
		writeAlertTable(r, run.alerts, run.entries)
		r.Line("(--verbose prints the lines as logged, and the entries' metadata)")
	}
	r.Line("")
	writeCounters(r, run.alerts)
	r.Section("Dead-letter events against the rows they report")
	o.writeEventMatch(r, run)

	o.checks(r, run, lines)
	return finish(r, "Checks", "EVERY DEAD-LETTER COUNTED AND REPORTED, WARNED BEFORE, NO SECRET IN SIGHT",
		"THE HOST'S ALERTING DID NOT HOLD", alertsMetrics, run), nil
}

// alertsMetrics add the lines the host logged: one per alert the sink raised.
var alertsMetrics = withMetrics(scenarios.Metric[*driveRun]{
	Key: "alert_lines", Value: func(r *driveRun) any { return len(r.alerts.Lines()) }})

// hostLines renders the alert sink's lines the way the host logs them; a
// careless host appends the payload.
func (o *alertsOptions) hostLines(run *driveRun) []string {
	payloads := map[int64]string{}
	for _, e := range run.entries {
		payloads[e.ID] = e.Payload
	}
	var out []string
	for _, l := range run.alerts.Lines() {
		s := l.String()
		if o.VerboseAlerts {
			s += " payload=" + payloads[l.EntryID]
		}
		out = append(out, s)
	}
	return out
}

// writeAlertTable prints one row per alert: when, which, about what, and
// the fields that say why; the metadata every line carries is left to --verbose.
func writeAlertTable(r *report.Report, a *emission.Alerts, entries []emission.Entry) {
	keys := map[int64]string{}
	for _, e := range entries {
		keys[e.ID] = e.Key
	}
	var rows [][]string
	for _, l := range a.Lines() {
		var why []string
		for _, f := range logFields(l.Text) {
			for _, p := range []string{"reason=", "attempt=", "next_retry=", "count=", "dead_lettered_total="} {
				if strings.HasPrefix(f, p) {
					why = append(why, f)
				}
			}
		}
		rows = append(rows, []string{clock.DayStamp(l.At), l.Level, strings.TrimPrefix(l.Name, "governance_outbox."), keys[l.EntryID],
			strings.Join(why, " ")})
	}
	r.Table([]string{"At", "Level", "Alert", "Entry", "Why"}, rows)
}

// logFields splits an alert line into its key=value fields as the log writes
// them: a quoted value (reason="poison message") is one field, spaces and all.
func logFields(text string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range text {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
