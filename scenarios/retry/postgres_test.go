package retry

import (
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios/scenariotest"
)

// Every scenario of the family, with the flags it fails with, tells the same
// story on PostgreSQL as on SQLite: the same body but for the lines about the
// database itself, the same checks passed and failed, the same JSON metrics
// (the family records no measured metric). The default flags' runs are cli's
// TestGoldenReportsPostgres's, once per database.
func TestPostgresReportsEqualSQLite(t *testing.T) {
	scenariotest.SameOnPostgres(t, pgtest.URL(t), "retry", nil, func(t *testing.T, name string, args []string, lite, pg *report.Report) {
		// The schema lines differ where a database was used: proof that
		// the second run was on PostgreSQL.
		if usesDB := name != jitterWave; usesDB != (lite.Body() != pg.Body()) {
			t.Errorf("uses a database %v, but the raw bodies differ %v", usesDB, lite.Body() != pg.Body())
		}
		if lite.Passed() {
			t.Errorf("passed on SQLite with %v, its FailsWith flags", args)
		}
	})
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
			scenariotest.SameRun(t, "first run", first, "second run", second, nil)
		})
	}
}
