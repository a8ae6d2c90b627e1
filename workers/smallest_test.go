package workers_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"outboxlab/grade"
	"outboxlab/scenarios"
)

// TestSmallestCases grades every wrong worker as the terminal does (the
// summary, the search for the smallest failing case): the summary's first
// failing check names the worker's bug; the smallest case never is larger
// than the run it was shrunk from, and for at least three quarters of the
// workers it is strictly smaller (fewer payments, workers, faults or
// timeline lines); replayed, it fails the same check again. It logs the
// table: wrong worker, the case's size, reruns and search time (wall time,
// for the reader only: nothing asserts it). make test searches for one
// wrong worker per Day (wrongWorkers' ten) and the one whose replay
// differs (wall-clock): under a minute of CPU;
// OUTBOXLAB_SMALLEST=all (make smallest) searches for every wrong worker
// and logs the whole table, about ten minutes on two shared cores. Skipped
// with -short.
func TestSmallestCases(t *testing.T) {
	if testing.Short() {
		t.Skip("grades every wrong worker with the search: minutes")
	}
	all := os.Getenv("OUTBOXLAB_SMALLEST") == "all"
	var table []string
	smaller, total := 0, 0
	for _, w := range wrongWorkers {
		if !all && !w.ten && w.bug != "wall-clock" {
			continue
		}
		name, command := w.day+"/"+w.bug, []string{wrongGo, "-bug", w.bug}
		if w.python != "" {
			python, err := exec.LookPath("python3")
			if err != nil {
				continue
			}
			name, command = w.day+"/"+filepath.Base(w.python), []string{python, w.python}
		}
		budget := testTurnBudget
		if w.budget {
			budget = grade.DefaultTurnBudget
		}
		o := &grade.Options{Day: grade.Lookup(w.day), Seed: grade.DefaultSeed, Variations: grade.DefaultVariations,
			TurnBudget: budget, StartBudget: testStartBudget, Command: command, Shrink: true}
		if _, err := o.Run(t.Context(), scenarios.NewEnv(t.TempDir())); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := o.Summary()
		if s.First == nil {
			t.Errorf("%s passed", name)
			continue
		}
		if other := firstIsAnother[w.bug]; !strings.Contains(s.First.Name, w.want) && (other == "" || s.First.Name != other) {
			t.Errorf("%s: the first failing check is %q, not the bug's %q", name, s.First.Name, w.want)
		}
		c := s.Smallest
		if c == nil {
			table = append(table, fmt.Sprintf("%-44s  (no search: failed across the runs %v)", name, s.First.In))
			continue
		}
		total++
		if c.Smaller {
			smaller++
		}
		table = append(table, fmt.Sprintf("%-44s %3d %3d %3d %5d  %-5v %3d %6.1fs", name, c.Payments, c.Workers,
			c.Faults, c.Lines, c.Smaller, c.Reruns, c.Took.Seconds()))
		// The wall-clock worker writes the machine's time: replayed, the
		// same case runs differently, and the summary says so. second-call
		// races two calls of its own, so its replay may or may not differ
		// (either is true of it); any other worker is never said to.
		switch racy := w.bug == "second-call"; {
		case w.bug == "wall-clock" && c.Unstable == "":
			t.Errorf("%s: its replay was not said to run differently", name)
		case w.bug != "wall-clock" && !racy && c.Unstable != "":
			t.Errorf("%s: said to run differently when replayed (%q), though it depends only on the lab", name, c.Unstable)
		}
		if c.JSON != "" && c.Unstable == "" {
			replayCase(t, name, w.day, c, command, budget)
		}
	}
	t.Logf("\n%-44s %3s %3s %3s %5s  %-5s %3s %7s\n%s", "wrong worker", "pay", "wrk", "flt", "lines", "less",
		"run", "search", strings.Join(table, "\n"))
	t.Logf("strictly smaller: %d of %d", smaller, total)
	if 4*smaller < 3*total {
		t.Errorf("strictly smaller for %d of %d wrong workers, want at least three quarters", smaller, total)
	}
}

// firstIsAnother are the wrong workers whose summary's first failing
// check names the bug in other words than TestWrongWorkersFail's: the
// never-calls-lab worker writes its rows without ever calling the lab, so
// no run exercised the hello check (it is judged across the runs, after
// what the runs saw) while every row it changed was in no turn of its own;
// select-then-update races already in Day 15's course run (three workers,
// one message a claim), where a second worker takes the killed worker's
// PAY-001 inside its live lease: the Day's own check, ranked before the
// lease check, says so ("taken over at 09:00:00.000Z, inside the killed
// claim's lease").
var firstIsAnother = map[string]string{
	"never-calls-lab":    "protocol: every row change in its worker's own turn",
	"select-then-update": "the killed worker's message taken over after its lease, then Processed",
}

// replayCase runs the case a search found (--case): it fails its check again.
func replayCase(t *testing.T, name, day string, c *grade.Case, command []string, budget time.Duration) {
	t.Helper()
	o := &grade.Options{Day: grade.Lookup(day), Seed: grade.DefaultSeed, Case: c.JSON,
		TurnBudget: budget, StartBudget: testStartBudget, Command: command}
	if err := o.Validate(); err != nil {
		t.Fatalf("%s: --case %s: %v", name, c.JSON, err)
	}
	rep, err := o.Run(t.Context(), scenarios.NewEnv(t.TempDir()))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := o.Summary()
	failed := s.First != nil && s.First.Name == c.Check
	for _, f := range s.Others {
		failed = failed || f.Name == c.Check
	}
	if rep.Passed() || !failed {
		t.Errorf("%s: --case %s did not fail %q again", name, c.JSON, c.Check)
	}
}
