package governance

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

// parityRuns are every governance scenario with its default flags and with
// the flags it fails with.
func parityRuns(t *testing.T) [][]string {
	t.Helper()
	var runs [][]string
	for _, n := range names {
		s := scenarios.Lookup(n)
		if s == nil {
			t.Fatalf("%s is not registered", n)
		}
		runs = append(runs, []string{n})
		if len(s.FailsWith) > 0 {
			runs = append(runs, append([]string{n}, s.FailsWith...))
		}
	}
	return runs
}

// TestSameReportOnPostgres runs every scenario of the family on SQLite and
// on PostgreSQL and requires the same report body (without the lines that
// describe the database), the same checks and the same metrics.
func TestSameReportOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, run := range parityRuns(t) {
		t.Run(strings.Join(run, " "), func(t *testing.T) {
			t.Parallel()
			lite := scenariotest.Run(t, run[0], run[1:]...)
			pg := scenariotest.RunPostgres(t, url, run[0], run[1:]...)
			sameRun(t, "sqlite", lite, "postgres", pg)
			if strings.Contains(pg.Body(), "postgres://") {
				t.Error("the PostgreSQL report prints a database URL")
			}
		})
	}
}

// TestStaleRaceIsDeterministicOnPostgres runs the pair's real race (two
// workers, two connections, goroutines) twice on PostgreSQL: the report must
// not depend on timing.
func TestStaleRaceIsDeterministicOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, n := range []string{staleAfter, staleBefore} {
		first := scenariotest.RunPostgres(t, url, n)
		second := scenariotest.RunPostgres(t, url, n)
		sameRun(t, "first", first, "second", second)
	}
}

// sameRun fails t, with a diff, where two runs of one command differ.
func sameRun(t *testing.T, nameA string, a *report.Report, nameB string, b *report.Report) {
	t.Helper()
	ba, bb := report.Comparable(a.Body()), report.Comparable(b.Body())
	if ba != bb {
		t.Errorf("report bodies differ:\n%s", report.Diff(nameA, ba, nameB, bb))
	}
	ra, rb := a.Result(), b.Result()
	if ra.Passed != rb.Passed || ra.Verdict != rb.Verdict {
		t.Errorf("%s passed %v (%s), %s passed %v (%s)", nameA, ra.Passed, ra.Verdict, nameB, rb.Passed, rb.Verdict)
	}
	if ja, jb := jsonText(t, ra.Checks), jsonText(t, rb.Checks); ja != jb {
		t.Errorf("checks differ:\n%s: %s\n%s: %s", nameA, ja, nameB, jb)
	}
	// No governance metric is a measurement: all of them must agree.
	if ja, jb := jsonText(t, ra.Metrics), jsonText(t, rb.Metrics); ja != jb {
		t.Errorf("metrics differ:\n%s: %s\n%s: %s", nameA, ja, nameB, jb)
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
