package retry

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// familyRuns are the runs the PostgreSQL test compares: every scenario of
// the family, with its default flags and with its FailsWith flags.
func familyRuns(t *testing.T) []whyCase {
	var runs []whyCase
	for _, s := range scenarios.All() {
		if s.Family != "retry" {
			continue
		}
		runs = append(runs, whyCase{scenario: s.Name}, whyCase{scenario: s.Name, args: s.FailsWith})
	}
	if len(runs) != 2*7 {
		t.Fatalf("the retry family has %d scenarios, want 7", len(runs)/2)
	}
	return runs
}

// Every scenario of the family tells the same story on PostgreSQL as on
// SQLite: the same body but for the lines about the database itself, the
// same checks passed and failed, the same JSON metrics.
func TestPostgresReportsEqualSQLite(t *testing.T) {
	url := pgtest.URL(t)
	for _, run := range familyRuns(t) {
		t.Run(run.scenario+" "+caseName(run.args), func(t *testing.T) {
			t.Parallel()
			lite := scenariotest.Run(t, run.scenario, run.args...)
			pg := scenariotest.RunPostgres(t, url, run.scenario, run.args...)
			sameRun(t, "SQLite", lite, "PostgreSQL", pg)
			// The schema lines differ where a database was used: proof that
			// the second run was on PostgreSQL.
			if usesDB := run.scenario != jitterWave; usesDB != (lite.Body() != pg.Body()) {
				t.Errorf("uses a database %v, but the raw bodies differ %v", usesDB, lite.Body() != pg.Body())
			}
			if want := run.args == nil; lite.Passed() != want {
				t.Errorf("passed = %v on SQLite, want %v", lite.Passed(), want)
			}
		})
	}
}

// Twice on PostgreSQL, the runs with the most going on at once (real child
// processes SIGKILLed while they hold a claim, four consumers on one queue)
// print the same report.
func TestPostgresRunsAreDeterministic(t *testing.T) {
	url := pgtest.URL(t)
	for _, name := range []string{poisonCounter, heldBackoff} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			first := scenariotest.RunPostgres(t, url, name)
			second := scenariotest.RunPostgres(t, url, name)
			sameRun(t, "first run", first, "second run", second)
		})
	}
}

// sameRun fails t where a and b differ: their comparable bodies (with a
// diff), which checks passed, or their JSON metrics. The family records no
// measured metric, so every metric must be equal.
func sameRun(t *testing.T, nameA string, a *report.Report, nameB string, b *report.Report) {
	t.Helper()
	if d := report.Diff(nameA, report.Comparable(a.Body()), nameB, report.Comparable(b.Body())); d != "" {
		t.Errorf("the comparable bodies differ:\n%s", d)
	}
	outcome := func(r *report.Report) []string {
		var out []string
		for _, c := range r.Result().Checks {
			mark := "PASS "
			if !c.Passed {
				mark = "FAIL "
			}
			out = append(out, mark+c.Name)
		}
		return out
	}
	if ca, cb := outcome(a), outcome(b); !slices.Equal(ca, cb) || len(ca) == 0 {
		t.Errorf("checks on %s %q, on %s %q", nameA, ca, nameB, cb)
	}
	ma, mb := a.Result().Metrics, b.Result().Metrics
	if len(ma) == 0 {
		t.Errorf("no metrics recorded on %s", nameA)
	}
	for _, k := range slices.Sorted(maps.Keys(ma)) {
		if va, vb := ma[k], mb[k]; !reflect.DeepEqual(va, vb) {
			t.Errorf("metric %s = %v on %s, %v on %s", k, va, nameA, vb, nameB)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			t.Errorf("metric %s only on %s", k, nameB)
		}
	}
}
