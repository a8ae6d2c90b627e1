package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// requireFits fails t for every line of out wider than 100 columns.
func requireFits(t *testing.T, what, out string) {
	t.Helper()
	scenariotest.Fits(t, what, out)
}

func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr)
	return stdout.String() + stderr.String(), code
}

// TestOutputFits100Columns walks every scenario with its default flags and
// every command's help, and requires every line to fit a 100-column
// terminal (emoji count 2, box drawing 1), so that it stays true.
func TestOutputFits100Columns(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out, code := runCLI(t, s.Name, "--report-dir", dir)
			if code != ExitOK {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			requireFits(t, s.Name, out)
			reports, _ := filepath.Glob(filepath.Join(dir, s.Group(), "*.txt"))
			for _, p := range reports {
				raw, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				_, body, _ := report.SplitHeader(string(raw))
				requireFits(t, s.Name+" report body", body)
			}
			help, _ := runCLI(t, s.Name, "--help")
			requireFits(t, s.Name+" --help", help)
		})
	}
	t.Run("commands", func(t *testing.T) {
		for _, args := range [][]string{{"--help"}, {"help"}, {"list"}, {"list", "--help"}, {"all", "--help"},
			{"compare", "--help"}, {"index", "--help"}, {"inspect", "--help"}, {"help", "inspect"}} {
			out, _ := runCLI(t, args...)
			requireFits(t, strings.Join(args, " "), out)
		}
	})
	t.Run("inspect", func(t *testing.T) {
		runDir := t.TempDir()
		t.Setenv("TMPDIR", runDir)
		out, code := runCLI(t, "session-16-retry-with-dead-letter", "--no-report", "--keep-db")
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		dbs, _ := filepath.Glob(filepath.Join(runDir, "*", "outbox.db"))
		if len(dbs) != 1 {
			t.Fatalf("found %d kept databases under %s, want 1:\n%s", len(dbs), runDir, out)
		}
		out, code = runCLI(t, "inspect", "--db", dbs[0])
		if code != ExitOK {
			t.Fatalf("inspect exit %d:\n%s", code, out)
		}
		requireFits(t, "inspect", out)
	})
	t.Run("compare and index", func(t *testing.T) {
		dir := t.TempDir()
		for _, args := range [][]string{{}, {"--max-attempts", "5", "--payments", "9"}} {
			if out, code := runCLI(t, append([]string{"session-16-retry-with-dead-letter", "--report-dir", dir}, args...)...); code != ExitOK {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		}
		reports, _ := filepath.Glob(filepath.Join(dir, "session-16", "*.txt"))
		if len(reports) != 2 {
			t.Fatalf("%d reports, want 2", len(reports))
		}
		for _, flags := range [][]string{{}, {"--checks"}, {"--metrics"}} {
			out, code := runCLI(t, append(append([]string{"compare"}, flags...), reports[0], reports[1])...)
			if code != ExitChecksFailed {
				t.Fatalf("compare %v: exit %d, want 1 (the runs differ):\n%s", flags, code, out)
			}
			requireFits(t, "compare "+strings.Join(flags, " "), out)
		}
		out, code := runCLI(t, "index", "--report-dir", dir)
		if code != ExitOK {
			t.Fatalf("index: exit %d:\n%s", code, out)
		}
		requireFits(t, "index", out)
	})
	t.Run("all", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs every scenario again")
		}
		out, code := runCLI(t, "all", "--no-report")
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		requireFits(t, "all", out)
	})
}
