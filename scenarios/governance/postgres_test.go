package governance

import (
	"testing"

	"outboxlab/internal/pgtest"
	"outboxlab/scenarios/scenariotest"
)

func TestMain(m *testing.M) { scenariotest.Main(m) }

// TestSameReportOnPostgres runs every scenario of the family with the flags
// it fails with on SQLite and on PostgreSQL and requires the same report body
// (without the lines that describe the database), the same checks and the
// same metrics (no governance metric is a measurement). The default flags'
// runs are cli's TestGoldenReportsPostgres's, once per database.
func TestSameReportOnPostgres(t *testing.T) {
	scenariotest.SameOnPostgres(t, pgtest.URL(t), "governance", nil, nil)
}

// TestStaleRaceIsDeterministicOnPostgres runs the pair's real race (two
// workers, two connections, goroutines) twice on PostgreSQL: the report must
// not depend on timing.
func TestStaleRaceIsDeterministicOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, n := range []string{staleAfter, staleBefore} {
		first := scenariotest.RunPostgres(t, url, n)
		second := scenariotest.RunPostgres(t, url, n)
		scenariotest.SameRun(t, "first", first, "second", second, nil)
	}
}
