package wassal

import (
	"testing"

	"outboxlab/internal/pgtest"
	"outboxlab/scenarios/scenariotest"
)

// TestSameReportOnPostgres runs every Wassal scenario with the flags it
// fails with on SQLite and on PostgreSQL, and requires the same report body
// (less the lines that describe the database), the same checks and the same
// metrics (no Wassal metric is a measurement). The default flags' runs are
// cli's TestGoldenReportsPostgres's, once per database.
func TestSameReportOnPostgres(t *testing.T) {
	scenariotest.SameOnPostgres(t, pgtest.URL(t), "wassal", nil, nil)
}

// TestConcurrentDaysAreDeterministicOnPostgres runs the days with real
// concurrency twice on PostgreSQL: Day 15's workers (a child process killed
// with SIGKILL, two workers on their own connections) and Day 14's lives
// killed between their writes. The report must not depend on timing.
func TestConcurrentDaysAreDeterministicOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, name := range []string{session15After, session15Before, session14Before} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			first := scenariotest.RunPostgres(t, url, name)
			second := scenariotest.RunPostgres(t, url, name)
			scenariotest.SameRun(t, "first", first, "second", second, nil)
		})
	}
}
