package workers_test

import (
	"bytes"
	"fmt"
	"testing"

	"outboxlab/cli"
)

// TestGradeCommandExits runs `outboxlab grade` itself: the Go reference
// exits 0, a wrong worker 1. The turn budget is the tests' (the most
// --turn-budget allows), and the start budget follows it.
func TestGradeCommandExits(t *testing.T) {
	budget := fmt.Sprint(testTurnBudget)
	for _, tc := range []struct {
		name    string
		command []string
		code    int
	}{
		{"reference", []string{referenceGo}, cli.ExitOK},
		{"no-max-attempts", []string{wrongGo, "-bug", "no-max-attempts"}, cli.ExitChecksFailed},
		{"dead-letter-deletes", []string{wrongGo, "-bug", "dead-letter-deletes"}, cli.ExitChecksFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"grade", "session-16", "--turn-budget", budget, "--report-dir", t.TempDir(), "--"}, tc.command...)
			var out, errb bytes.Buffer
			if code := cli.Main(args, &out, &errb); code != tc.code {
				t.Fatalf("outboxlab %v: exit %d, want %d\nstderr: %s", args, code, tc.code, errb.String())
			}
		})
	}
}
