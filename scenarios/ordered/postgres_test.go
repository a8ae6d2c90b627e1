package ordered

import (
	"encoding/json"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestSameReportOnPostgres runs every ordered scenario, with its default
// flags and with the flags it fails with, on SQLite and on PostgreSQL: the
// report bodies must be the same but for the lines that describe the
// database (the schema), and so must the verdict, the checks and every
// metric (none of the family's is a measurement).
func TestSameReportOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, name := range names {
		s := scenarios.Lookup(name)
		if s == nil {
			t.Fatalf("%s is not registered", name)
		}
		runs := [][]string{nil}
		if len(s.FailsWith) > 0 {
			runs = append(runs, s.FailsWith)
		}
		for _, args := range runs {
			t.Run(strings.Join(append([]string{name}, args...), " "), func(t *testing.T) {
				t.Parallel()
				lite := scenariotest.Run(t, name, args...)
				pg := scenariotest.RunPostgres(t, url, name, args...)
				requireSameRun(t, "sqlite", lite, "postgres", pg)
				if strings.Contains(pg.Body(), "postgres://") {
					t.Error("the PostgreSQL report prints a database location")
				}
				if !strings.Contains(pg.Body(), "## Schema "+report.DatabaseMarker) || !strings.Contains(pg.Body(), `COLLATE "C"`) {
					t.Error("the PostgreSQL report has no PostgreSQL schema in a section marked " + report.DatabaseMarker)
				}
			})
		}
	}
}

// TestPostgresRunsAreRepeatable runs one scenario twice on PostgreSQL, four
// databases each (own, own in-order reference, partner): the second run must
// print what the first did.
func TestPostgresRunsAreRepeatable(t *testing.T) {
	url := pgtest.URL(t)
	first := scenariotest.RunPostgres(t, url, blockKeyName)
	second := scenariotest.RunPostgres(t, url, blockKeyName)
	requireSameRun(t, "first", first, "second", second)
}

// requireSameRun fails t, with a diff, where two runs differ.
func requireSameRun(t *testing.T, nameA string, a *report.Report, nameB string, b *report.Report) {
	t.Helper()
	if ba, bb := report.Comparable(a.Body()), report.Comparable(b.Body()); ba != bb {
		t.Errorf("report bodies differ:\n%s", report.Diff(nameA, ba, nameB, bb))
	}
	ra, rb := a.Result(), b.Result()
	if ra.Passed != rb.Passed || ra.Verdict != rb.Verdict {
		t.Errorf("%s passed %v (%s), %s passed %v (%s)", nameA, ra.Passed, ra.Verdict, nameB, rb.Passed, rb.Verdict)
	}
	for _, part := range []struct {
		what   string
		va, vb any
	}{{"checks", ra.Checks, rb.Checks}, {"metrics", ra.Metrics, rb.Metrics}} {
		ja, err := json.Marshal(part.va)
		if err != nil {
			t.Fatal(err)
		}
		jb, err := json.Marshal(part.vb)
		if err != nil {
			t.Fatal(err)
		}
		if string(ja) != string(jb) {
			t.Errorf("%s differ:\n%s: %s\n%s: %s", part.what, nameA, ja, nameB, jb)
		}
	}
}
