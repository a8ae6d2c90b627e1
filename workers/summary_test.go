package workers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"outboxlab/cli"
	"outboxlab/grade"
	"outboxlab/scenarios"
	"outboxlab/workers"
)

// columns80 is a terminal 80 columns wide (report.Sized).
type columns80 struct{ bytes.Buffer }

func (*columns80) Columns() int { return 80 }

// TestGradeSummaryFits grades the untouched Day 16 starter and the
// reference as a student does, at 80 columns: the starter's terminal
// (stdout and stderr) fits in 60 lines, names its first failing check with
// its detail and variations, and offers the command that prints one
// variation in full; the reference's fits in 20. The report file keeps
// every line, and --json carries the summary.
func TestGradeSummaryFits(t *testing.T) {
	budget := fmt.Sprint(testTurnBudget)
	for _, tc := range []struct {
		name     string
		command  []string
		code     int
		maxLines int
		want     []string
	}{
		{"starter", []string{starterOf["session-16"]}, cli.ExitChecksFailed, 60, []string{
			"First failing check (in v1, v2, v3, v4):",
			"  FAIL  the poison tried exactly MaxAttempts times",
			"        v1: PAY-003: AttemptCount",
			"Also failing (",
			"--variation=1 --full -- " + starterOf["session-16"],
			"VERDICT: [FAIL ❌]",
			"Smallest failing case (shrunk from v1 in ",
			"Replay it (exits 1):",
			"--case=",
		}},
		{"reference", []string{referenceGo}, cli.ExitOK, 20, []string{"  PASS  v4 variation 3", "VERDICT: [PASS ✅] every check held"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reports := t.TempDir()
			args := append([]string{"grade", "session-16", "--turn-budget", budget, "--report-dir", reports, "--"}, tc.command...)
			var out columns80
			var errb bytes.Buffer
			if code := cli.Main(args, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errb.String())
			}
			text := out.String() + errb.String()
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			t.Logf("%d lines:\n%s", len(lines), text)
			if len(lines) > tc.maxLines {
				t.Errorf("%d lines at 80 columns, want at most %d", len(lines), tc.maxLines)
			}
			for _, l := range lines {
				// A path or command longer than a line is never broken.
				if w := len([]rune(l)); w > 80 && !strings.Contains(l, os.TempDir()) {
					t.Errorf("a line of %d columns: %q", w, l)
				}
			}
			for _, want := range tc.want {
				if !strings.Contains(text, want) {
					t.Errorf("the terminal does not say %q", want)
				}
			}
			if strings.Contains(text, "## Timeline") {
				t.Errorf("the summary printed a timeline: --full does that")
			}
		})
	}
}

// TestGradeJSONCarriesTheSummary: --json holds the checks and the summary,
// whose first failing check is the first FAIL of the checks.
func TestGradeJSONCarriesTheSummary(t *testing.T) {
	args := []string{"grade", "session-16", "--no-report", "--json", "--variations", "1", "--turn-budget",
		fmt.Sprint(testTurnBudget), "--", starterOf["session-16"]}
	var out, errb bytes.Buffer
	if code := cli.Main(args, &out, &errb); code != cli.ExitChecksFailed {
		t.Fatalf("exit %d\nstderr: %s", code, errb.String())
	}
	var doc struct {
		Checks []struct {
			Name   string
			Passed bool
		}
		Summary struct {
			First struct {
				Name       string
				Variations []string
			} `json:"first_failing"`
			Commands map[string]string
			Smallest *struct {
				Check    string
				Case     string
				Payments int
				Smaller  bool
			} `json:"smallest_case"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	first := ""
	for _, c := range doc.Checks {
		if !c.Passed {
			first = strings.TrimPrefix(c.Name, "v1: ")
			break
		}
	}
	if doc.Summary.First.Name == "" || doc.Summary.First.Name != first || len(doc.Summary.First.Variations) != 2 {
		t.Errorf("summary's first failing %+v, want %q in v1 and v2", doc.Summary.First, first)
	}
	if c := doc.Summary.Smallest; c == nil || c.Check != first || !c.Smaller || c.Payments >= 6 ||
		!strings.Contains(doc.Summary.Commands["case"], "--case="+"'"+c.Case+"'") {
		t.Errorf("smallest case %+v, commands %q: want a smaller case of %q and its replay", c, doc.Summary.Commands, first)
	}
	if c := doc.Summary.Commands["in_full"]; !strings.Contains(c, " --variations=1 ") || !strings.Contains(c, " --variation=1 --full -- ") {
		t.Errorf("commands %q", doc.Summary.Commands)
	}
}

// TestStarterFirstFailureNamesItsTODO grades each untouched starter: the
// summary's first failing check names the Day's section of the protocol
// page and a numbered TODO of the starter.
func TestStarterFirstFailureNamesItsTODO(t *testing.T) {
	for _, day := range workers.Days() {
		t.Run(day, func(t *testing.T) {
			o := &grade.Options{Day: grade.Lookup(day), Seed: grade.DefaultSeed, Variations: 1,
				TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: []string{starterOf[day]}}
			if _, err := o.Run(t.Context(), scenarios.NewEnv(t.TempDir())); err != nil {
				t.Fatal(err)
			}
			f := o.Summary().First
			if f == nil {
				t.Fatalf("the starter passed %s", day)
			}
			t.Logf("first failing: %s → %s §%s TODO %v", f.Name, grade.ProtocolPage, f.Section, f.TODOs)
			if len(f.TODOs) == 0 || f.TODOTag == "" || !strings.HasPrefix(f.Section, "7.") ||
				!strings.HasPrefix(f.Anchor, grade.ProtocolPage+"#7") {
				t.Errorf("first failing %+v: want the Day's section and a TODO", f)
			}
		})
	}
}
