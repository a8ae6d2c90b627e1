package grade

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
)

// okWorker is the test worker (testdata/ok16), built once per test binary;
// refWorker the Go reference (workers/reference/go), which also speaks Day
// 18's hosted calls that ok16 does not.
var okWorker, refWorker string

// passingWorker is a worker that does what day asks: ok16 on the Days it
// speaks, the Go reference on Day 18.
func passingWorker(day string) string {
	if day == "session-18" {
		return refWorker
	}
	return okWorker
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "grade-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	okWorker, refWorker = filepath.Join(dir, "ok16"), filepath.Join(dir, "reference")
	for out, pkg := range map[string]string{okWorker: "./testdata/ok16", refWorker: "../workers/reference/go"} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build the test workers:", err)
			os.Exit(3)
		}
	}
	os.Unsetenv(pgdb.EnvVar)
	os.Unsetenv(pgdb.LegacyEnvVar)
	code := m.Run()
	if pgServer != nil {
		if err := pgServer.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = max(code, 1)
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// The tests' wall-clock budgets: a turn may take a minute (the most
// --turn-budget allows) and a start as long, so that neither a loaded
// machine nor the race detector fails a worker that does what the Day asks.
// A test whose check is a budget (a worker that hangs) sets its own.
const (
	testTurnBudget  = time.Minute
	testStartBudget = time.Minute
)

// gradeRun grades command on day in a fresh directory and returns the report.
func gradeRun(t testing.TB, day string, seed uint64, command ...string) (*report.Report, string) {
	t.Helper()
	return gradeWith(t, &Options{Day: Lookup(day), Seed: seed, Variations: DefaultVariations,
		TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: command})
}

// gradeRunBudget is gradeRun (with the default seed) with a turn budget and
// a start budget (the wall time until a worker's hello) of its own, for
// workers that hang.
func gradeRunBudget(t testing.TB, day string, turn, start time.Duration, command ...string) (*report.Report, string) {
	t.Helper()
	return gradeWith(t, &Options{Day: Lookup(day), Seed: DefaultSeed, Variations: DefaultVariations,
		TurnBudget: turn, StartBudget: start, Command: command})
}

// gradeWith grades o in a fresh directory and returns the report and what
// the workers' output the lab showed.
func gradeWith(t testing.TB, o *Options) (*report.Report, string) {
	t.Helper()
	if o.Day == nil {
		t.Fatal("no such Day")
	}
	var stderr bytes.Buffer
	o.Stderr = &stderr
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	rep, err := o.Run(t.Context(), scenarios.NewEnv(t.TempDir()))
	if err != nil {
		t.Fatalf("grade %s: %v", o.Day.ID, err)
	}
	return rep, stderr.String()
}

func build(t testing.TB, out, pkg string) {
	t.Helper()
	if _, err := os.Stat(out); err == nil {
		return
	}
	b := exec.Command("go", "build", "-o", out, pkg)
	if msg, err := b.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, msg)
	}
}

// The PostgreSQL server of this test binary, started by the first test that
// needs it (pgtest.Main would exit before TestMain removes the workers).
var (
	pgOnce   sync.Once
	pgServer *pgtest.Server
	pgErr    error
)

// postgresURL is the server's URL; with no PostgreSQL installed the test is
// skipped, except under CI=true.
func postgresURL(t testing.TB) string {
	t.Helper()
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start() })
	switch {
	case errors.Is(pgErr, pgtest.ErrNotInstalled) && os.Getenv("CI") != "true":
		t.Skip("pgtest: skipped: " + pgErr.Error())
	case pgErr != nil:
		t.Fatalf("pgtest: %v", pgErr)
	}
	return pgServer.URL
}
