package grade

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// okWorker is the test worker (testdata/ok16), built once per test binary.
var okWorker string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "grade-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	okWorker = filepath.Join(dir, "ok16")
	build := exec.Command("go", "build", "-o", okWorker, "./testdata/ok16")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the test worker:", err)
		os.Exit(3)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// gradeRun grades command on day in a fresh directory and returns the report.
func gradeRun(t testing.TB, day string, seed uint64, command ...string) (*report.Report, string) {
	t.Helper()
	d := Lookup(day)
	if d == nil {
		t.Fatalf("no Day %s", day)
	}
	var stderr bytes.Buffer
	o := &Options{Day: d, Seed: seed, Variations: DefaultVariations, TurnBudget: DefaultTurnBudget,
		Command: command, Stderr: &stderr}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := o.Run(ctx, scenarios.NewEnv(t.TempDir()))
	if err != nil {
		t.Fatalf("grade %s: %v", day, err)
	}
	return rep, stderr.String()
}
