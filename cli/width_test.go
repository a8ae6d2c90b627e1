package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
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

// terminal is standard output on a terminal of a chosen width: it says so
// (report.Sized), as a real terminal's size would.
type terminal struct {
	bytes.Buffer
	columns int
}

func (t *terminal) Columns() int { return t.columns }

// runAt runs the lab in-process with args, its standard output a terminal
// width columns wide, and returns what it printed and its exit code.
func runAt(t *testing.T, width int, args ...string) (string, int) {
	t.Helper()
	stdout := &terminal{columns: width}
	var stderr bytes.Buffer
	code := Main(args, stdout, &stderr)
	return stdout.String() + stderr.String(), code
}

// requireNoMarkers fails t for every line of out, what the student reads,
// that ends with one of compare's markers: the report file keeps them.
func requireNoMarkers(t *testing.T, what, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, report.MeasuredMarker) || strings.HasSuffix(l, report.DatabaseMarker) {
			t.Errorf("%s: the terminal shows a compare marker: %s", what, l)
		}
	}
}

// TestOutputWidth80And100 requires every line of every scenario's output
// at its defaults, of its report body, of every command's help, of list
// and of all to fit the terminal it is shown on, at 80 columns and at 100
// (emoji count 2, box drawing 1). At 100 it reads each scenario's one run
// at its defaults (sqliteDefault, the golden tests' run); at 80 it runs it
// again on an 80-column terminal, and requires the report body that run
// wrote to be that run's, byte for byte: the terminal changes what it
// shows, never the report. Neither shows compare's markers.
func TestOutputWidth80And100(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			wide := sqliteDefault(t, s)
			requireFits(t, s.Name, wide.stdout)
			_, body, _ := report.SplitHeader(wide.raw)
			requireFits(t, s.Name+" report body", body)

			dir := t.TempDir()
			narrow, code := runAt(t, 80, append([]string{s.Name, "--report-dir", dir}, s.GoldenArgs...)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("exit %d at 80 columns:\n%s", code, narrow)
			}
			scenariotest.FitsIn(t, s.Name+" at 80 columns", narrow, 80)
			for what, out := range map[string]string{"at 80": narrow, "at 100": wide.stdout} {
				requireNoMarkers(t, s.Name+" "+what, out)
			}
			reports, _ := filepath.Glob(filepath.Join(dir, s.Group(), "*.txt"))
			if len(reports) != 1 {
				t.Fatalf("%d reports at 80 columns, want 1", len(reports))
			}
			raw, err := os.ReadFile(reports[0])
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := report.ComparableBody(string(raw)); got != wide.body {
				t.Errorf("the report body written from an 80-column terminal differs:\n%s",
					report.Diff("at 100", wide.body, "at 80", got))
			}
			for _, width := range []int{80, 100} {
				help, _ := runAt(t, width, s.Name, "--help")
				scenariotest.FitsIn(t, s.Name+" --help", help, width)
			}
		})
	}
	t.Run("commands", func(t *testing.T) {
		commands := [][]string{{"--help"}, {"help"}, {"list"}}
		for _, c := range newRoot(nil).Commands() {
			if scenarios.Lookup(c.Name()) == nil { // the scenarios' help is above
				commands = append(commands, []string{c.Name(), "--help"}, []string{"help", c.Name()})
			}
		}
		for _, width := range []int{80, 100} {
			for _, args := range commands {
				out, _ := runAt(t, width, args...)
				scenariotest.FitsIn(t, strings.Join(args, " "), out, width)
			}
		}
	})
	t.Run("inspect", func(t *testing.T) {
		runDir := t.TempDir()
		t.Setenv("TMPDIR", runDir)
		out, code := runCLI(t, "session-16-retry-with-dead-letter", "--no-report", "--keep-db")
		if code != cmdutil.ExitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		dbs, _ := filepath.Glob(filepath.Join(runDir, "*", "outbox.db"))
		if len(dbs) != 1 {
			t.Fatalf("found %d kept databases under %s, want 1:\n%s", len(dbs), runDir, out)
		}
		out, code = runCLI(t, "inspect", "--db", dbs[0])
		if code != cmdutil.ExitOK {
			t.Fatalf("inspect exit %d:\n%s", code, out)
		}
		requireFits(t, "inspect", out)
	})
	t.Run("compare and index", func(t *testing.T) {
		dir := t.TempDir()
		for _, args := range [][]string{{}, {"--max-attempts", "5", "--payments", "9"}} {
			if out, code := runCLI(t, append([]string{"session-16-retry-with-dead-letter", "--report-dir", dir}, args...)...); code != cmdutil.ExitOK {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		}
		reports, _ := filepath.Glob(filepath.Join(dir, "session-16", "*.txt"))
		if len(reports) != 2 {
			t.Fatalf("%d reports, want 2", len(reports))
		}
		for _, flags := range [][]string{{}, {"--checks"}, {"--metrics"}} {
			out, code := runCLI(t, append(append([]string{"compare"}, flags...), reports[0], reports[1])...)
			if code != cmdutil.ExitChecksFailed {
				t.Fatalf("compare %v: exit %d, want 1 (the runs differ):\n%s", flags, code, out)
			}
			requireFits(t, "compare "+strings.Join(flags, " "), out)
		}
		out, code := runCLI(t, "index", "--report-dir", dir)
		if code != cmdutil.ExitOK {
			t.Fatalf("index: exit %d:\n%s", code, out)
		}
		requireFits(t, "index", out)
	})
	t.Run("all", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs every scenario again")
		}
		out, code := runAt(t, 80, "all", "--no-report")
		if code != cmdutil.ExitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		scenariotest.FitsIn(t, "all at 80 columns", out, 80)
	})
}

// TestGoldenBodyWithBrief runs scenarios with --brief: the terminal shows
// the story alone (no per-message table, no metrics), the report file the
// whole body, byte for byte the golden run's.
func TestGoldenBodyWithBrief(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	for _, name := range []string{"session-16-retry-with-dead-letter", "session-13-pending-lost-on-restart"} {
		s := scenarios.Lookup(name)
		whole := sqliteDefault(t, s)
		brief := goldenRun(t, s, "--brief")
		if brief.body != whole.body {
			t.Errorf("%s --brief wrote another body:\n%s", name, report.Diff("without", whole.body, "--brief", brief.body))
		}
		for _, gone := range []string{"## Per-message table", "## Real BEFORE vs AFTER metrics", "\nSource "} {
			if !strings.Contains(whole.stdout, gone) || strings.Contains(brief.stdout, gone) {
				t.Errorf("%s --brief: %q is on the terminal, or never was", name, gone)
			}
		}
		for _, kept := range []string{"## Timeline (scenario clock)", "\nVERDICT: " + whole.record.Verdict + "\n"} {
			if !strings.Contains(brief.stdout, kept) {
				t.Errorf("%s --brief does not show %q:\n%s", name, kept, brief.stdout)
			}
		}
		if w, b := strings.Count(whole.stdout, "\n"), strings.Count(brief.stdout, "\n"); b >= w*3/4 {
			t.Errorf("%s --brief shows %d lines, without it %d", name, b, w)
		}
	}
}

// TestStopAfterFollowsTheWidth: what --stop-after prints (the line saying
// where it stopped and the event) is laid out for the terminal's width, as
// every other output is: at 80 columns no line is wider (it was laid out
// for 100), at 100 the event keeps its longer lines.
func TestStopAfterFollowsTheWidth(t *testing.T) {
	for _, width := range []int{80, 100} {
		out, code := runAt(t, width, "session-16-retry-with-dead-letter", "--stop-after", "3", "--no-report")
		if code != cmdutil.ExitOK || !strings.Contains(out, "stopped after event 3 ") {
			t.Fatalf("--stop-after 3 at %d columns: exit %d\n%s", width, code, out)
		}
		_, stopped, _ := strings.Cut(out, "stopped after event")
		stopped, _, _ = strings.Cut(stopped, "database: ")
		scenariotest.FitsIn(t, fmt.Sprintf("--stop-after at %d columns", width), stopped, width)
		if width == 100 && !strings.Contains(stopped, "(status check: provider unavailable (503)) →") {
			t.Errorf("at 100 columns the event is wrapped narrower than it needs:\n%s", stopped)
		}
	}
}
