package ordered

import (
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios/scenariotest"
)

func TestMain(m *testing.M) { scenariotest.Main(m) }

// TestSameReportOnPostgres runs every ordered scenario with the flags it
// fails with on SQLite and on PostgreSQL: the report bodies must be the same
// but for the lines that describe the database (the schema), and so must the
// verdict, the checks and every metric (none of the family's is a
// measurement). The default flags' runs are cli's TestGoldenReportsPostgres's,
// once per database.
func TestSameReportOnPostgres(t *testing.T) {
	scenariotest.SameOnPostgres(t, pgtest.URL(t), "ordered", nil, func(t *testing.T, _ string, _ []string, _, pg *report.Report) {
		if !strings.Contains(pg.Body(), "## Schema "+report.DatabaseMarker) || !strings.Contains(pg.Body(), `COLLATE "C"`) {
			t.Error("the PostgreSQL report has no PostgreSQL schema in a section marked " + report.DatabaseMarker)
		}
	})
}

// TestPostgresRunsAreRepeatable runs one scenario twice on PostgreSQL, four
// databases each (own, own in-order reference, partner): the second run must
// print what the first did.
func TestPostgresRunsAreRepeatable(t *testing.T) {
	url := pgtest.URL(t)
	first := scenariotest.RunPostgres(t, url, blockKeyName)
	second := scenariotest.RunPostgres(t, url, blockKeyName)
	scenariotest.SameRun(t, "first", first, "second", second, nil)
}
