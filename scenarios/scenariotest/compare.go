package scenariotest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"outboxlab/core/child"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
)

// Main is the TestMain of a package that runs scenarios: a scenario that
// starts child processes re-executes the test binary (child.RunIfChild),
// and the PostgreSQL tests get one throwaway server (pgtest.Main, which also
// unsets OUTBOXLAB_DATABASE).
func Main(m *testing.M) {
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	pgtest.Main(m)
}

// SameRun fails t, with a diff, where two runs of one command differ: their
// comparable bodies (without measured and database lines), outcomes,
// checks and metrics. unmeasured, when not nil, keeps of the metrics what
// two runs must agree on (a family whose metrics hold measurements).
func SameRun(t testing.TB, nameA string, a *report.Report, nameB string, b *report.Report, unmeasured func(map[string]any) map[string]any) {
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
	ma, mb := ra.Metrics, rb.Metrics
	if unmeasured != nil {
		ma, mb = unmeasured(ma), unmeasured(mb)
	}
	if ja, jb := jsonText(t, ma), jsonText(t, mb); ja != jb {
		t.Errorf("metrics differ:\n%s: %s\n%s: %s", nameA, ja, nameB, jb)
	}
}

// SameOnPostgres runs every scenario of family with the flags it fails with
// (its FailsWith) on SQLite and on the PostgreSQL server at url, side by
// side, and requires the same run (SameRun) and no database URL in the
// PostgreSQL report. extra, when not nil, checks more of each pair of runs.
//
// The runs at the default flags are not repeated here: cli's golden tests
// make the one run of each scenario at its defaults on each database, and
// TestGoldenReportsPostgres requires of it what this requires of a pair (the
// golden's body, the SQLite run's checks and metrics, no URL).
func SameOnPostgres(t *testing.T, url, family string, unmeasured func(map[string]any) map[string]any,
	extra func(t *testing.T, name string, args []string, lite, pg *report.Report)) {
	t.Helper()
	var found int
	for _, s := range scenarios.All() {
		if s.Family != family {
			continue
		}
		found++
		if len(s.FailsWith) == 0 {
			t.Errorf("%s declares no FailsWith flags to compare on PostgreSQL", s.Name)
			continue
		}
		name, args := s.Name, s.FailsWith
		t.Run(strings.Join(append([]string{name}, args...), " "), func(t *testing.T) {
			t.Parallel()
			lite := Shared(t, name, args...) // the family's FailsWith tests may read it too
			pg := RunPostgres(t, url, name, args...)
			SameRun(t, "sqlite", lite, "postgres", pg, unmeasured)
			if strings.Contains(pg.Body(), "postgres://") || strings.Contains(pg.Body(), "postgresql://") {
				t.Error("the PostgreSQL report prints a database URL")
			}
			if extra != nil {
				extra(t, name, args, lite, pg)
			}
		})
	}
	if found == 0 {
		t.Fatalf("no scenario of family %q is registered", family)
	}
}

// CheckNamed returns r's check called name; a report without it fails the
// test, so a renamed check cannot make a test pass by going missing.
func CheckNamed(t testing.TB, r *report.Report, name string) report.Check {
	t.Helper()
	var names []string
	for _, c := range r.Result().Checks {
		if c.Name == name {
			return c
		}
		names = append(names, c.Name)
	}
	t.Fatalf("no check named %q; the report has %q", name, names)
	return report.Check{}
}

func jsonText(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
