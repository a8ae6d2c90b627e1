package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden report bodies in testdata/golden")

// TestGoldenReports runs every registered scenario with its default flags and
// compares the body of the report it writes with testdata/golden/<name>.txt.
// A golden file is reviewed like code: regenerate with -update only after
// reading the diff.
func TestGoldenReports(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			body, stdout := goldenRun(t, s)
			shown, _ := report.ComparableBody(stdout)
			if !strings.Contains(shown, body) {
				t.Error("the terminal did not show the report body")
			}
			golden := filepath.Join("..", "testdata", "golden", s.Name+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden report (run go test ./cli -run TestGoldenReports -update, then review it): %v", err)
			}
			if d := report.Diff("golden", string(want), "got", body); d != "" {
				t.Errorf("report body differs from %s:\n%s", golden, d)
			}
		})
	}
}

// TestGoldenReportsPostgres runs every registered scenario with --database on
// the test binary's PostgreSQL server and requires the comparable part of its
// body (without [measured] and [database] lines) to equal the golden's: the
// golden files stay the SQLite bodies, and the two backends tell the same
// story. Never -update from here.
func TestGoldenReportsPostgres(t *testing.T) {
	url := pgtest.URL(t)
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			if !s.Alone { // a scenario that measures runs with nothing beside it, as in all
				t.Parallel() // each run has its own schemas; most of the time is the server's fsync
			}
			body, _ := goldenRun(t, s, "--database", url)
			golden := filepath.Join("..", "testdata", "golden", s.Name+".txt")
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden report: %v", err)
			}
			if d := report.Diff("golden (SQLite)", report.Comparable(string(want)), "PostgreSQL", body); d != "" {
				t.Errorf("the comparable body on PostgreSQL differs from %s:\n%s", golden, d)
			}
		})
	}
}

// goldenRun runs s as the golden tests do (its GoldenArgs, then args) and
// returns the comparable body of the report it wrote, and its stdout.
func goldenRun(t *testing.T, s *scenarios.Scenario, args ...string) (body, stdout string) {
	t.Helper()
	dir := t.TempDir()
	var out, stderr bytes.Buffer
	args = append(append([]string{s.Name, "--report-dir", dir}, s.GoldenArgs...), args...)
	if code := Main(args, &out, &stderr); code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr: %s", code, stderr.String())
	}
	matches, _ := filepath.Glob(filepath.Join(dir, s.Group(), report.TitleCase(s.Name)+"-RunReport-*.txt"))
	if len(matches) != 1 {
		t.Fatalf("found %d reports, want 1", len(matches))
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	body, ok := report.ComparableBody(string(raw))
	if !ok {
		t.Fatal("report has no run-metadata header")
	}
	return body, out.String()
}
