package governance

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/emission"
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
		FailsWith:        []string{"--dead-letter-on-max-retry-attempts=false"},
		NotExercisedWith: []string{"--max-retry-attempts", "1"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindLegacy(fs) },
	})
}

type legacyOptions struct {
	scenarios.Declared
	drain *drainFlags
}

func bindLegacy(fs *pflag.FlagSet) *legacyOptions {
	def := emission.DefaultOptions()
	def.MaxRetryAttempts = 8
	o := &legacyOptions{}
	o.drain = bindDrainFlags(o.Declare(fs), def)
	return o
}

func (o *legacyOptions) Validate() error {
	if err := o.drain.validate(); err != nil {
		return err
	}
	// Two drains of the four entries, each followed by a pass a day later.
	return o.drain.withinBudget(o.drain.entriesLoad(o.specs()).drains(2).add(load{span: 24 * time.Hour}))
}

func (o *legacyOptions) specs() []entrySpec {
	return []entrySpec{
		{Key: entryKey(1), Role: "legacy column left at its default", Steps: []emission.Step{unavailable}},
		{Key: entryKey(2), Role: "legacy MaxRetryCount 3", Steps: []emission.Step{unavailable}, MaxRetryCount: 3},
		{Key: entryKey(3), Role: "legacy MaxRetryCount 12", Steps: []emission.Step{unavailable}, MaxRetryCount: 12},
		{Key: entryKey(4), Role: "persisted at RetryCount 5 of MaxRetryCount 5", Steps: []emission.Step{unavailable}, MaxRetryCount: 5, PriorFailures: 5},
	}
}

func (o *legacyOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	store, claim, err := driveBoth(ctx, env, driveSpec{flags: o.drain, entries: o.specs()})
	if err != nil {
		return nil, err
	}
	r := report.New(legacyName, report.Experiment)
	layout{name: legacyName, title: "Governance — the legacy MaxRetryCount column is kept and ignored",
		specs: o.specs(), flags: o.drain,
		notes: []string{fmt.Sprintf("Legacy    GovernanceOutboxEntries.MaxRetryCount, declared DEFAULT %s; the drain never reads it", claim.maxRetryCountDefault)},
	}.write(r, store, claim, env.Verbose)
	r.Section("Legacy column against the drain option (claim drain)")
	o.writeLegacy(r, claim)
	o.checks(r, store, claim)
	return finish(r, "Checks", fmt.Sprintf("MAXRETRYATTEMPTS %d IS THE POLICY; THE LEGACY COLUMN SUPPRESSES NOTHING", o.drain.MaxRetryAttempts),
		"MAXRETRYATTEMPTS DID NOT DECIDE EVERY DEAD-LETTER", drainMetrics, claim), nil
}

// legacyMetrics are one entry's numbers against its legacy column.
type legacyMetrics struct {
	selectedPast int    // emissions selected with RetryCount ≥ MaxRetryCount
	atLegacy     string // the status its failure number MaxRetryCount left, "" if it had none
	deadAt       int    // RetryCount on dead-lettering, 0 if not dead-lettered
}

// legacyOf reads one entry's metrics from the provider's ledger, the
// transition log and the legacy column as seeded.
func legacyOf(run *driveRun, key string) legacyMetrics {
	var f legacyMetrics
	legacy := run.seeded[key].MaxRetryCount
	for _, e := range run.emissions(key) {
		if e.before >= legacy {
			f.selectedPast++
		}
		if e.failed() && e.logged && e.log.RetryCount == legacy {
			f.atLegacy = string(e.log.To)
		}
		if e.logged && e.log.To == emission.DeadLettered {
			f.deadAt = e.log.RetryCount
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
			dead = fmt.Sprintf("attempt %d", f.deadAt)
		}
		rows = append(rows, []string{s.Key, strconv.Itoa(e.MaxRetryCount), strconv.Itoa(s.PriorFailures),
			strconv.Itoa(f.selectedPast), orNone(f.atLegacy, "—"), dead, strconv.Itoa(o.drain.MaxRetryAttempts)})
	}
	r.Table([]string{"Entry", "MaxRetryCount", "Prior", "Past it", "Status at it", "Dead-lettered on", "MaxRetryAttempts"}, rows)
	r.Line("(MaxRetryCount: the legacy column; Prior: RetryCount before the run; Past it: emissions at")
	r.Line(" RetryCount ≥ MaxRetryCount; Status at it: after failure #MaxRetryCount)")
}

func (o *legacyOptions) checks(r *report.Report, store, claim *driveRun) {
	maxAttempts := o.drain.MaxRetryAttempts
	checkSameOutcome(r, store, claim)
	// Kept: every row still holds the legacy value it was seeded with (the
	// column's declared default when the producer gave none); the drain never
	// rewrote it.
	declared, _ := strconv.Atoi(claim.maxRetryCountDefault)
	kept, rows := 0, 0
	for _, run := range []*driveRun{store, claim} {
		for _, s := range o.specs() {
			want := s.MaxRetryCount
			if want == 0 {
				want = declared
			}
			rows++
			if run.seeded[s.Key].MaxRetryCount == want && run.entry(s.Key).MaxRetryCount == want {
				kept++
			}
		}
	}
	g1 := claim.entry(entryKey(1))
	stillHeld := "every row (both modes) still holds the value it was seeded with"
	if kept != rows {
		stillHeld = fmt.Sprintf("only %d of %d rows (both modes) still hold the value they were seeded with", kept, rows)
	}
	r.Check("the legacy MaxRetryCount column is kept, default 5", claim.maxRetryCountDefault == "5" && g1.MaxRetryCount == 5 && kept == rows,
		fmt.Sprintf("declared DEFAULT %s; %s, inserted without it, stores %d; %s",
			claim.maxRetryCountDefault, g1.Key, g1.MaxRetryCount, stillHeld))

	var selected, atLegacy, dead []string
	selOK, atOK, deadOK, selTotal := true, true, true, 0
	for _, s := range o.specs() {
		legacy, f := claim.seeded[s.Key].MaxRetryCount, legacyOf(claim, s.Key)
		if legacy < maxAttempts || s.PriorFailures >= legacy {
			selOK = selOK && f.selectedPast > 0
		}
		selTotal += f.selectedPast
		if f.selectedPast > 0 {
			selected = append(selected, fmt.Sprintf("%s %d× at ≥ %d", s.Key, f.selectedPast, legacy))
		}
		if f.atLegacy != "" {
			atOK = atOK && (f.atLegacy == string(emission.Failed) || legacy >= maxAttempts)
			atLegacy = append(atLegacy, fmt.Sprintf("%s failure %d → %s", s.Key, legacy, f.atLegacy))
		}
		want := max(maxAttempts, s.PriorFailures+1)
		deadOK = deadOK && f.deadAt == want && claim.entry(s.Key).Status == emission.DeadLettered
		if f.deadAt > 0 {
			dead = append(dead, fmt.Sprintf("%s (legacy %d) at %d", s.Key, legacy, f.deadAt))
		} else {
			final := claim.entry(s.Key)
			dead = append(dead, fmt.Sprintf("%s (legacy %d) not dead-lettered: %s, RetryCount %d", s.Key, legacy, final.Status, final.RetryCount))
		}
	}
	if selTotal == 0 {
		r.NotExercised("retry selection is not suppressed by MaxRetryCount", fmt.Sprintf("no entry was selected past its "+
			"MaxRetryCount: MaxRetryAttempts %d ended them first; a higher --max-retry-attempts", maxAttempts))
	} else {
		r.Check("retry selection is not suppressed by MaxRetryCount", selOK, strings.Join(selected, "; "))
	}
	if len(atLegacy) == 0 {
		r.NotExercised("a failure at MaxRetryCount creates no terminal transition", fmt.Sprintf("no failure landed on a "+
			"MaxRetryCount: MaxRetryAttempts %d ended them first; a higher --max-retry-attempts", maxAttempts))
	} else {
		r.Check("a failure at MaxRetryCount creates no terminal transition", atOK, strings.Join(atLegacy, "; "))
	}
	r.Check(fmt.Sprintf("every entry dead-letters at MaxRetryAttempts %d, whatever its MaxRetryCount", maxAttempts), deadOK,
		strings.Join(dead, "; "))
}
