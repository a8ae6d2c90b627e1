package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/workers"
)

var update = flag.Bool("update", false, "rewrite the golden report bodies in testdata/golden")

// TestGoldenReports runs every registered scenario with its default flags and
// compares the body of the report it writes with testdata/golden/<name>.txt.
// A golden file is reviewed like code: regenerate with -update only after
// reading the diff.
//
// This is the one run of each scenario at its defaults on SQLite in the
// package (sqliteDefault): a test that needs that run reads it from there.
func TestGoldenReports(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			run := sqliteDefault(t, s)
			// The terminal shows the body as its view (report.View): at 100
			// columns, the body without compare's markers.
			if _, body, _ := report.SplitHeader(run.raw); !strings.Contains(run.stdout, report.View(body, report.MaxWidth)) {
				t.Error("the terminal did not show the report body")
			}
			golden := goldenPath(s)
			if *update {
				if err := os.WriteFile(golden, []byte(run.body), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden report (run go test ./cli -run TestGoldenReports -update, then review it): %v", err)
			}
			if d := report.Diff("golden", string(want), "got", run.body); d != "" {
				t.Errorf("report body differs from %s:\n%s", golden, d)
			}
		})
	}
}

// TestGoldenReportsPostgres runs every registered scenario with --database on
// the test binary's PostgreSQL server and requires the comparable part of its
// body (without [measured] and [database] lines) to equal the golden's: the
// golden files stay the SQLite bodies, and the two backends tell the same
// story. The run's record (its header's JSON) must give the same verdict,
// checks and metrics, but for measured ones, as the SQLite run of
// TestGoldenReports, and its body no database URL. Never -update from here.
//
// This is the one run of each scenario at its defaults on PostgreSQL in a
// `make test`: the families' SameOnPostgres tests compare their FailsWith
// runs only.
func TestGoldenReportsPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			if !s.Alone { // a scenario that measures runs with nothing beside it, as in all
				t.Parallel() // each run has its own schemas; most of the time is the server's fsync
			}
			pg := goldenRun(t, s, "--database", url)
			want, err := os.ReadFile(goldenPath(s))
			if err != nil {
				t.Fatalf("no golden report: %v", err)
			}
			// A drain table's cells that the database's split of a backlog
			// decides are masked on both sides (only worker-throughput has one).
			golden, got := workers.MaskSplit(report.Comparable(string(want))), workers.MaskSplit(pg.body)
			if d := report.Diff("golden (SQLite)", golden, "PostgreSQL", got); d != "" {
				t.Errorf("the comparable body on PostgreSQL differs from %s:\n%s", goldenPath(s), d)
			}
			if _, body, _ := report.SplitHeader(pg.raw); strings.Contains(body, "postgres://") || strings.Contains(body, "postgresql://") {
				t.Error("the PostgreSQL report body prints a database URL")
			}
			lite := sqliteDefault(t, s)
			sameRecord(t, lite.record, pg.record)
		})
	}
}

// goldenPath is s's golden body.
func goldenPath(s *scenarios.Scenario) string {
	return filepath.Join("..", "testdata", "golden", s.Name+".txt")
}

// goldenResult is one run as the golden tests make it: the report's
// comparable body and raw text, the record its header holds, and stdout.
type goldenResult struct {
	body, raw, stdout string
	record            *report.Record
}

// sqliteDefaults holds each scenario's run at its defaults (GoldenArgs) on
// SQLite, made once per test binary, whichever test asks first.
var sqliteDefaults struct {
	sync.Mutex
	runs map[string]*sharedRun
}

type sharedRun struct {
	once sync.Once
	res  goldenResult
	err  string // why the run failed; every reader fails with it
}

// sqliteDefault returns s's run at its defaults on SQLite, running it the
// first time it is asked for (from TestGoldenReports, which runs first).
func sqliteDefault(t *testing.T, s *scenarios.Scenario) goldenResult {
	t.Helper()
	sqliteDefaults.Lock()
	if sqliteDefaults.runs == nil {
		sqliteDefaults.runs = map[string]*sharedRun{}
	}
	run := sqliteDefaults.runs[s.Name]
	if run == nil {
		run = &sharedRun{}
		sqliteDefaults.runs[s.Name] = run
	}
	sqliteDefaults.Unlock()
	run.once.Do(func() {
		res, err := runGolden(s)
		run.res, run.err = res, err
	})
	if run.err != "" {
		t.Fatalf("%s at its defaults on SQLite: %s", s.Name, run.err)
	}
	return run.res
}

// goldenRun runs s as the golden tests do (its GoldenArgs, then args).
func goldenRun(t *testing.T, s *scenarios.Scenario, args ...string) goldenResult {
	t.Helper()
	res, err := runGolden(s, args...)
	if err != "" {
		t.Fatal(err)
	}
	return res
}

// runGolden runs s with its GoldenArgs, then args, and reads back the
// report it wrote; a non-empty string says what went wrong.
func runGolden(s *scenarios.Scenario, args ...string) (goldenResult, string) {
	dir, err := os.MkdirTemp("", "outboxlab-golden-")
	if err != nil {
		return goldenResult{}, err.Error()
	}
	defer os.RemoveAll(dir)
	var out, stderr bytes.Buffer
	args = append(append([]string{s.Name, "--report-dir", dir}, s.GoldenArgs...), args...)
	if code := Main(args, &out, &stderr); code != cmdutil.ExitOK {
		return goldenResult{}, "exit " + strconv.Itoa(code) + ", want 0; stderr: " + stderr.String()
	}
	matches, _ := filepath.Glob(filepath.Join(dir, s.Group(), report.TitleCase(s.Name)+"-RunReport-*.txt"))
	if len(matches) != 1 {
		return goldenResult{}, "found " + strconv.Itoa(len(matches)) + " reports, want 1"
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		return goldenResult{}, err.Error()
	}
	doc, ok := report.Parse(string(raw))
	if !ok || !doc.HasHeader || doc.Info.Record == nil {
		return goldenResult{}, "report has no run-metadata header with a record"
	}
	body, _ := report.ComparableBody(string(raw))
	return goldenResult{body: body, raw: string(raw), stdout: out.String(), record: doc.Info.Record}, ""
}

// sameRecord fails t unless the SQLite and PostgreSQL runs' records give the
// same verdict, checks and metrics, but for measured metrics (keys starting
// with "measured_", at any depth).
func sameRecord(t *testing.T, lite, pg *report.Record) {
	t.Helper()
	if lite.Passed != pg.Passed || lite.Verdict != pg.Verdict {
		t.Errorf("SQLite passed %v (%s), PostgreSQL passed %v (%s)", lite.Passed, lite.Verdict, pg.Passed, pg.Verdict)
	}
	if a, b := jsonOf(t, lite.Checks), jsonOf(t, pg.Checks); a != b {
		t.Errorf("checks differ:\n%s", report.Diff("SQLite", a, "PostgreSQL", b))
	}
	if a, b := jsonOf(t, unmeasured(lite.Metrics)), jsonOf(t, unmeasured(pg.Metrics)); a != b {
		t.Errorf("metrics differ:\n%s", report.Diff("SQLite", a, "PostgreSQL", b))
	}
}

// unmeasured is v without the map keys starting with "measured_", at any
// depth (worker-throughput's drains hold measured figures too), nor the
// drains' claim and settlement counts, which depend on how the database
// splits a backlog between concurrent claims (workers.IsSplitMetric).
func unmeasured(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := maps.Clone(v)
		for k, e := range out {
			if strings.HasPrefix(k, "measured_") || workers.IsSplitMetric(k) {
				delete(out, k)
			} else {
				out[k] = unmeasured(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = unmeasured(e)
		}
		return out
	}
	return v
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}
