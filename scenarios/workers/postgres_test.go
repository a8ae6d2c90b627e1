package workers

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// Every scenario of the family, with the flags that make it fail, prints the
// same report body on PostgreSQL as on SQLite, but for its measured lines and
// the lines that describe the database: the same checks pass and fail, and
// the JSON metrics are the same but for the measurements. The golden flags'
// runs are cli's TestGoldenReportsPostgres's, once per database.
func TestSameReportOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, s := range scenarios.All() {
		if s.Family != "workers" {
			continue
		}
		// A smaller backlog and a shorter overload than the defaults': the
		// same failing story at a fifth of the server's commits (the default
		// sizes cost 100 s under -race on PostgreSQL, for the same pairs).
		// Six rounds, the fewest that tell a difference: each round starts
		// the worker processes anew there.
		for _, flags := range [][]string{s.FailsWith, s.NotExercisedWith} {
			args := append(append([]string{}, flags...), "--messages", "100", "--repeats", "6", "--produce-for", "2s")
			t.Run(s.Name+" "+caseName(args), func(t *testing.T) {
				t.Parallel() // the runs wait on the server's commits, not the CPU
				lite := scenariotest.Run(t, s.Name, args...)
				pg := scenariotest.RunPostgres(t, url, s.Name, args...)
				sameRun(t, lite, pg)
				if pg.Passed() {
					t.Errorf("%s passed on PostgreSQL with %v, its FailsWith or NotExercisedWith flags", s.Name, args)
				}
			})
		}
	}
}

// Worker processes on PostgreSQL (its default), each with its own connection,
// race for the same rows: two runs must still print the same report.
func TestPostgresTwiceWithProcesses(t *testing.T) {
	url := pgtest.URL(t)
	args := []string{"--messages", "120", "--workers", "1,4", "--batch", "10", "--produce-for", "1s"}
	// At once, in schemas of their own: 2 × 4 worker processes compete for
	// the server as well.
	runs := make([]*report.Report, 2)
	t.Run("runs", func(t *testing.T) { // returns once both parallel runs have
		for i := range runs {
			t.Run(strconv.Itoa(i+1), func(t *testing.T) {
				t.Parallel()
				runs[i] = scenariotest.RunPostgres(t, url, throughputName, args...)
			})
		}
	})
	if t.Failed() {
		return
	}
	first, second := runs[0], runs[1]
	sameRun(t, first, second)
	if !second.Passed() {
		t.Errorf("checks failed:\n%s", second.Body())
	}
}

// sameRun fails the test unless a and b have the same comparable body,
// the same checks and the same metrics but for the measured ones and those
// the database's split of a backlog decides (MaskSplit, IsSplitMetric).
func sameRun(t *testing.T, a, b *report.Report) {
	t.Helper()
	if d := report.Diff("first", MaskSplit(report.Comparable(a.Body())), "second", MaskSplit(report.Comparable(b.Body()))); d != "" {
		t.Errorf("report bodies differ:\n%s", d)
	}
	ra, rb := a.Result(), b.Result()
	if ja, jb := jsonText(t, ra.Checks), jsonText(t, rb.Checks); ja != jb {
		t.Errorf("checks differ:\n%s", report.Diff("first", ja, "second", jb))
	}
	if ja, jb := jsonText(t, unmeasured(ra.Metrics)), jsonText(t, unmeasured(rb.Metrics)); ja != jb {
		t.Errorf("metrics differ:\n%s", report.Diff("first", ja, "second", jb))
	}
}

// unmeasured is metrics without the measured ones (keys starting with
// "measured_"), also inside the drains' entries, nor the drains' figures
// that depend on how concurrent claims split a backlog (IsSplitMetric).
func unmeasured(metrics map[string]any) map[string]any {
	out := maps.Clone(metrics)
	for k, v := range out {
		switch {
		case strings.HasPrefix(k, "measured_") || IsSplitMetric(k):
			delete(out, k)
		case k == "drains":
			var drains []map[string]any
			for _, d := range v.([]map[string]any) {
				drains = append(drains, unmeasured(d))
			}
			out[k] = drains
		}
	}
	return out
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}
