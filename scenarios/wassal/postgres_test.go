package wassal

import (
	"encoding/json"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios/scenariotest"
)

// TestSameReportOnPostgres runs every Wassal scenario, with its default
// flags and with the flags it fails with, on SQLite and on PostgreSQL, and
// requires the same report body (less the lines that describe the database),
// the same checks and the same metrics.
func TestSameReportOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, s := range wassalScenarios(t) {
		name := s.Name
		for _, args := range [][]string{nil, s.FailsWith} {
			t.Run(strings.Join(append([]string{name}, args...), " "), func(t *testing.T) {
				t.Parallel()
				lite := scenariotest.Run(t, name, args...)
				pg := scenariotest.RunPostgres(t, url, name, args...)
				sameRun(t, "sqlite", lite, "postgres", pg)
				if strings.Contains(pg.Body(), "postgres://") {
					t.Error("the PostgreSQL report prints a database URL")
				}
			})
		}
	}
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
			sameRun(t, "first", first, "second", second)
		})
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
	// No Wassal metric is a measurement: all of them must agree.
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
