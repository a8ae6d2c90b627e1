package cli

import (
	"bytes"
	"outboxlab/cli/cmdutil"
	"strings"
	"testing"
)

// TestGradeCaseFlags: --case runs one case (exit 1 for a worker that does
// nothing), refuses what is not a case of the Day, and --variation with
// --case is one run too many (exit 2).
func TestGradeCaseFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"unknown field", []string{"--case", `{"Bogus":1}`}, cmdutil.ExitUsage, `--case {"Bogus":1}: json: unknown field "Bogus"`},
		{"key past the payments", []string{"--case", `{"Payments":1}`}, cmdutil.ExitUsage, "PAY-003 is past the 1 payments seeded"},
		{"not JSON", []string{"--case", "payments=1"}, cmdutil.ExitUsage, "--case payments=1"},
		{"both", []string{"--case", "{}", "--variation", "1"}, cmdutil.ExitUsage, "--variation and --case each run one case"},
		{"variation out of range", []string{"--variation", "5"}, cmdutil.ExitUsage, "--variation 5: want 1"},
		{"a case", []string{"--shrink=false", "--case", `{"Declined":"","Payments":1,"Poison":["PAY-001"]}`}, cmdutil.ExitChecksFailed,
			""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"grade", "session-16", "--no-report"}, tc.args...), "--", "true")
			var out, errb bytes.Buffer
			if code := Main(args, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stderr %q does not say %q", errb.String(), tc.err)
			}
			if tc.code == cmdutil.ExitChecksFailed && !strings.Contains(out.String(), "the case --case gives, alone") {
				t.Errorf("the summary does not say it ran the case alone:\n%s", out.String())
			}
		})
	}
}
