package governance

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	gov "outboxlab/core/governance"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const legacyName = "governance-legacy-max-retry-count"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    legacyName,
		Family:  "governance",
		Kind:    report.Experiment,
		Summary: "the legacy per-entry MaxRetryCount column (default 5) is kept but ignored: MaxRetryAttempts 8 dead-letters at 8",
		Long: `GovernanceOutboxEntry.MaxRetryCount stays in the schema for persisted-record
compatibility, with its legacy default of 5, but the drain options are the
authoritative policy. Four poison entries carry different legacy values: the column
default (5), 3, 12, and a persisted record already at RetryCount 5 of MaxRetryCount 5.
With MaxRetryAttempts 8 (this scenario's default, the documented example) every one
of them is still selected once its RetryCount passes its MaxRetryCount, a failure at
MaxRetryCount is an ordinary retryable failure, and each dead-letters at 8 — not at 3,
5 or 12. Both drain modes run; the checks compare them.`,
		Example: `  outboxlab governance-legacy-max-retry-count
  outboxlab governance-legacy-max-retry-count --max-retry-attempts 15   # GOV-003's legacy 12 does not stop it either
  outboxlab governance-legacy-max-retry-count --max-retry-attempts 5    # the record already at 5 dead-letters on its next failure`,
		Bind: func(fs *pflag.FlagSet) scenarios.Options { return bindLegacy(fs) },
	})
}

type legacyOptions struct{ drain *drainFlags }

func bindLegacy(fs *pflag.FlagSet) *legacyOptions {
	def := gov.DefaultOptions()
	def.MaxRetryAttempts = 8
	return &legacyOptions{drain: bindDrainFlags(fs, def)}
}

func (o *legacyOptions) Validate() error { return o.drain.validate() }

func (o *legacyOptions) specs() []entrySpec {
	return []entrySpec{
		{Key: entryKey(1), Role: "legacy column left at its default", Steps: []gov.Step{unavailable}},
		{Key: entryKey(2), Role: "legacy MaxRetryCount 3", Steps: []gov.Step{unavailable}, MaxRetryCount: 3},
		{Key: entryKey(3), Role: "legacy MaxRetryCount 12", Steps: []gov.Step{unavailable}, MaxRetryCount: 12},
		{Key: entryKey(4), Role: "persisted at RetryCount 5 of MaxRetryCount 5", Steps: []gov.Step{unavailable}, MaxRetryCount: 5, PriorFailures: 5},
	}
}

func (o *legacyOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, claim, err := driveBoth(ctx, env.DBPath, env.Dir, driveSpec{flags: o.drain, entries: o.specs()})
	if err != nil {
		return nil, err
	}
	r := report.New(legacyName, report.Experiment)
	layout{name: legacyName, title: "Governance — the legacy MaxRetryCount column is kept and ignored",
		specs: o.specs(), flags: o.drain,
		notes: []string{fmt.Sprintf("Legacy    GovernanceOutboxEntries.MaxRetryCount, declared DEFAULT %s; the drain never reads it", claim.maxRetryCountDefault)},
	}.write(r, store, claim)
	r.Section("Legacy column against the drain option (claim drain)")
	o.writeLegacy(r, claim)
	o.checks(r, store, claim)
	r.Checks("Checks")
	r.Verdict(fmt.Sprintf("MAXRETRYATTEMPTS %d IS THE POLICY; THE LEGACY COLUMN SUPPRESSES NOTHING ✅", o.drain.MaxRetryAttempts),
		"THE LEGACY COLUMN OVERRODE THE DRAIN OPTIONS — SEE THE FAILED CHECKS ❌")
	recordMetrics(r, claim, o.drain)
	return r, nil
}

// legacyFigures are one entry's numbers against its legacy column.
type legacyFigures struct {
	selectedPast int    // emissions selected with RetryCount ≥ MaxRetryCount
	atLegacy     string // the status its failure number MaxRetryCount left, "" if it had none
	deadAt       int    // RetryCount on dead-lettering, 0 if not dead-lettered
}

func legacyOf(run *driveRun, key string) legacyFigures {
	var f legacyFigures
	for _, ev := range run.handled(key) {
		if ev.Entry.RetryCount >= ev.Entry.MaxRetryCount {
			f.selectedPast++
		}
		if ev.Result.Kind == gov.ResultFailed && ev.Transition.RetryCount == ev.Entry.MaxRetryCount {
			f.atLegacy = string(ev.Transition.To)
		}
		if ev.Transition.To == gov.DeadLettered {
			f.deadAt = ev.Transition.RetryCount
		}
	}
	return f
}

func (o *legacyOptions) writeLegacy(r *report.Report, run *driveRun) {
	var rows [][]string
	for _, s := range o.specs() {
		e, f := run.entry(s.Key), legacyOf(run, s.Key)
		dead := "not dead-lettered"
		if f.deadAt > 0 {
			dead = fmt.Sprintf("failed attempt %d", f.deadAt)
		}
		rows = append(rows, []string{s.Key, strconv.Itoa(e.MaxRetryCount), strconv.Itoa(s.PriorFailures),
			strconv.Itoa(f.selectedPast), orNone(f.atLegacy, "—"), dead, strconv.Itoa(o.drain.MaxRetryAttempts)})
	}
	r.Table([]string{"Entry", "MaxRetryCount (legacy)", "RetryCount before the run", "Emissions at RetryCount ≥ MaxRetryCount",
		"Status after failure #MaxRetryCount", "Dead-lettered on", "MaxRetryAttempts"}, rows)
}

func (o *legacyOptions) checks(r *report.Report, store, claim *driveRun) {
	maxAttempts := o.drain.MaxRetryAttempts
	checkSameOutcome(r, store, claim)
	g1 := claim.entry(entryKey(1))
	r.Check("the legacy MaxRetryCount column is kept, default 5", claim.maxRetryCountDefault == "5" && g1.MaxRetryCount == 5,
		fmt.Sprintf("declared DEFAULT %s; %s, inserted without it, stores %d", claim.maxRetryCountDefault, g1.Key, g1.MaxRetryCount))

	var selected, atLegacy, dead []string
	selOK, atOK, deadOK, selTotal := true, true, true, 0
	for _, s := range o.specs() {
		e, f := claim.entry(s.Key), legacyOf(claim, s.Key)
		if e.MaxRetryCount < maxAttempts || s.PriorFailures >= e.MaxRetryCount {
			selOK = selOK && f.selectedPast > 0
		}
		selTotal += f.selectedPast
		if f.selectedPast > 0 {
			selected = append(selected, fmt.Sprintf("%s %d× at ≥ %d", s.Key, f.selectedPast, e.MaxRetryCount))
		}
		if f.atLegacy != "" {
			atOK = atOK && (f.atLegacy == string(gov.Failed) || e.MaxRetryCount >= maxAttempts)
			atLegacy = append(atLegacy, fmt.Sprintf("%s failure %d → %s", s.Key, e.MaxRetryCount, f.atLegacy))
		}
		want := max(maxAttempts, s.PriorFailures+1)
		deadOK = deadOK && f.deadAt == want && e.Status == gov.DeadLettered
		dead = append(dead, fmt.Sprintf("%s (legacy %d) at %d", s.Key, e.MaxRetryCount, f.deadAt))
	}
	r.Check("retry selection is not suppressed by MaxRetryCount", selOK && selTotal > 0,
		orNone(strings.Join(selected, "; "), "no entry was selected past its MaxRetryCount"))
	r.Check("a failure at MaxRetryCount creates no terminal transition", atOK,
		orNone(strings.Join(atLegacy, "; "), "no failure landed on a MaxRetryCount"))
	r.Check(fmt.Sprintf("every entry dead-letters at MaxRetryAttempts %d, whatever its MaxRetryCount", maxAttempts), deadOK,
		strings.Join(dead, "; "))
}
