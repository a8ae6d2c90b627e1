package scenariotest_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"outboxlab/cli"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

func runLab(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Main(append(args, "--no-report"), &out, &errb)
	return code, out.String(), errb.String()
}

// TestFixtureGetsEverythingFromItsDeclarations runs the fixture scenario
// (fixture_spec_test.go, one spec file and nothing else) through what every
// scenario gets from its declarations: the registry's Limits, the ranges and
// maximum length in --help, the refusals of the harness, the extremes and
// the width rule.
func TestFixtureGetsEverythingFromItsDeclarations(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	s := scenarios.Lookup(fixtureName)
	want := []scenarios.Limit{
		{Flag: "widgets", Min: "1", Max: "40"}, {Flag: "batch", Min: "1", Max: "10"},
		{Flag: "seed", Min: "0", Max: "1048576"}, {Flag: "pause", Min: "1ms", Max: "1h0m0s"},
	}
	if got := s.Limits(); !slices.Equal(got, want) {
		t.Errorf("Limits() = %v, want %v", got, want)
	}

	code, help, _ := runLab(fixtureName, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, line := range []string{"widgets to count [1..40]", "scenario time between two batches [1ms..1h0m0s]",
		"what the widgets are called in the report [at most 64"} {
		if !strings.Contains(help, line) {
			t.Errorf("--help has no %q:\n%s", line, help)
		}
	}
	scenariotest.Fits(t, fixtureName+" --help", help)

	for _, tt := range []struct {
		args    []string
		code    int
		refusal string
	}{
		{nil, 0, ""},
		{[]string{"--miscount"}, 1, ""},
		{[]string{"--widgets", "41"}, 2, "outboxlab: --widgets must be between 1 and 40, got 41\n"},
		{[]string{"--pause", "1500us"}, 2, "outboxlab: --pause must be a whole number of milliseconds, got 1.5ms\n"},
		{[]string{"--label", strings.Repeat("x", 65)}, 2, "outboxlab: --label is 65 characters long; at most 64 are accepted\n"},
		// The rule between flags runs after the ranges, in Validate.
		{[]string{"--widgets", "40", "--batch", "1", "--pause", "1h"}, 2,
			"outboxlab: --widgets 40 in batches of --batch 1, --pause 1h0m0s apart, take 40h0m0s, more than a day\n"},
		{[]string{"--widgets", "0", "--batch", "1", "--pause", "1h"}, 2, "outboxlab: --widgets must be between 1 and 40, got 0\n"},
	} {
		code, stdout, stderr := runLab(append([]string{fixtureName}, tt.args...)...)
		if code != tt.code || stderr != tt.refusal {
			t.Errorf("%s %v: exit %d, stderr %q; want %d, %q", fixtureName, tt.args, code, stderr, tt.code, tt.refusal)
		}
		scenariotest.Fits(t, fixtureName+" "+strings.Join(tt.args, " "), stdout)
	}

	scenariotest.Extremes(t, s, runLab)
}
