package wassal

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// wassalScenarios are the sixteen scenarios of the family: Days 13-17 and
// the lab's own Day 18 (its lease, shutdown and waiting pairs).
func wassalScenarios(t *testing.T) []*scenarios.Scenario {
	var out []*scenarios.Scenario
	for _, s := range scenarios.All() {
		if s.Family == "wassal" {
			out = append(out, s)
		}
	}
	if len(out) != 16 {
		t.Fatalf("%d wassal scenarios registered, want 16", len(out))
	}
	return out
}

// Every int and duration flag of a day has a declared limit, and every
// limit names a flag the day has. (cli's TestFlagExtremesRun drives each
// limit, its extremes and one step beyond, for every scenario.)
func TestEveryNumericFlagHasALimit(t *testing.T) {
	t.Parallel()
	for _, s := range wassalScenarios(t) {
		fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
		s.Bind(fs)
		seen := map[string]bool{}
		for _, l := range s.Limits() {
			if fs.Lookup(l.Flag) == nil {
				t.Errorf("%s: limit on --%s, which it does not have", s.Name, l.Flag)
			}
			seen[l.Flag] = true
		}
		fs.VisitAll(func(f *pflag.Flag) {
			if (f.Value.Type() == "int" || f.Value.Type() == "duration") && !seen[f.Name] {
				t.Errorf("%s: --%s has no declared limit", s.Name, f.Name)
			}
		})
	}
}

// The fewest payments a day accepts is the highest payment its default
// flags name: fewer and a default would name a payment that is not seeded.
func TestPaymentsMinimumIsTheHighestDefaultKey(t *testing.T) {
	t.Parallel()
	for _, s := range wassalScenarios(t) {
		fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
		s.Bind(fs)
		highest := 0
		fs.VisitAll(func(f *pflag.Flag) {
			for _, k := range strings.Split(strings.Trim(f.DefValue, "[]"), ",") {
				if strings.HasPrefix(k, "PAY-") {
					highest = max(highest, keyIndex(k))
				}
			}
		})
		for _, l := range s.Limits() {
			if l.Flag == "payments" && l.Min != strconv.Itoa(highest) {
				t.Errorf("%s: --payments from %s, but its defaults name PAY-%03d", s.Name, l.Min, highest)
			}
		}
	}
}

// keysUpTo lists PAY-001..PAY-n for a flag.
func keysUpTo(n int) string { return strings.Join(PaymentKeys(n), ",") }

func TestValidateBoundsTheWorkOfSeveralFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string // empty: accepted
	}{
		{session16After, []string{"--poison-key", keysUpTo(150), "--declined-key", "none", "--payments", "150"}, ""},
		{session16After, []string{"--poison-key", keysUpTo(160), "--declined-key", "none", "--payments", "160"},
			"160 poison keys × (10 naive + 3 policy attempts) = 2080 attempts, at most 2000"},
		{session16After, []string{"--retry-cap", "1000", "--max-attempts", "30"}, ""},
		{session16After, []string{"--dead-letter=false", "--retry-cap", "1000", "--max-backoff", "24h"}, ""},
		{session16After, []string{"--dead-letter=false", "--retry-cap", "1000"},
			"1000 policy attempts backing off from --base-backoff 200ms, doubling with no --max-backoff, would move the scenario clock more than 100 years"},
		{session17After, []string{"--poison-key", keysUpTo(4), "--declined-key", "none", "--max-attempts", "20", "--redrive-attempts", "10"}, ""},
		{session17After, []string{"--poison-key", keysUpTo(15), "--declined-key", "none", "--max-attempts", "20", "--redrive-attempts", "10", "--payments", "15"},
			"15 poison keys × (3 × 20 --max-attempts + 10 --redrive-attempts + 1) = 1065 attempts, at most 1000"},
		{session14Before, []string{"--crash-at", keysUpTo(10), "--payments", "10"}, ""},
		{session14Before, []string{"--crash-at", keysUpTo(11), "--payments", "11"}, "--crash-at lists 11 keys, at most 10"},
		{session15After, []string{"--lease", "1500us"}, "--lease must be a whole number of milliseconds, got 1.5ms"},
		{session16Before, []string{"--poison-key", "PAY-002,PAY-004", "--declined-key", "none"}, ""},
		// Keys are given exactly (scenarios.CheckKey): padded ones are refused.
		{session16Before, []string{"--poison-key", " PAY-002 , PAY-004"}, `--poison-key " PAY-002 " has spaces around the key`},
		// A key in the wrong letter case is refused with the right spelling.
		{session16After, []string{"--poison-key", "pay-003"}, `--poison-key "pay-003" is not a key (letter case matters); did you mean PAY-003?`},
		{session16Before, []string{"--poison-key", "PAY-002,pay-004"}, "did you mean PAY-004?"},
		{session16After, []string{"--declined-key", "Pay-005"}, "--declined-key \"Pay-005\" is not a key (letter case matters); did you mean PAY-005?"},
		{session17After, []string{"--more-dead-letters", "pay-004"}, "did you mean PAY-004?"},
		{session14Before, []string{"--crash-at", "pay-002"}, "did you mean PAY-002?"},
		{session16After, []string{"--poison-key", "pay-099"}, `--poison-key "pay-099" is not a seeded payment`},
		{session13After, []string{"--timeout-key", "pay-003"}, "did you mean PAY-003?"},
		{session13After, []string{"--crash-after", "pay-006"}, "did you mean PAY-006?"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			err := scenariotest.Bind(t, tt.name, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSpanAddsUpWithoutOverflowing(t *testing.T) {
	t.Parallel()
	if got := span(0).backoffs(200*time.Millisecond, 0, 1, 2); time.Duration(got) != 602*time.Millisecond {
		t.Errorf("backoffs after attempts 1-2 = %s, want 602ms (200 + 400 ms, 1 ms slack each)", time.Duration(got))
	}
	if got := span(0).backoffs(time.Second, 3*time.Second, 1, 4); time.Duration(got) != 9004*time.Millisecond {
		t.Errorf("capped backoffs = %s, want 9.004s (1 + 2 + 3 + 3 s)", time.Duration(got))
	}
	for _, s := range []span{
		span(0).backoffs(maxFlagDuration, 0, 1, 10000),
		span(0).add(1<<62, maxFlagDuration),
		span(maxSpan).add(1, time.Millisecond),
	} {
		if !s.tooLong() || s.text() != "more than 100 years" {
			t.Errorf("span %d: tooLong %v, %q; want past the budget", s, s.tooLong(), s.text())
		}
	}
}

// The ranges Day 16 declares beyond its flags' own: --flaky-key's N at 1 and
// at 1000, and --max-attempts up to 1000 once --max-backoff bounds the
// clock, each finishing with its checks' verdict (cli's TestFlagExtremesRun
// drives the declared limits; these are the ones a flag's part or another
// flag decides). One step beyond is refused.
func TestSession16ExtremesBeyondTheDeclaredFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--flaky-key", "PAY-004:1"},
		{"--flaky-key", "PAY-004:1000"},
		{"--flaky-key", "PAY-004:1000", "--max-attempts", "1000", "--max-backoff", "1ms"},
		{"--max-attempts", "1000", "--max-backoff", "1ms", "--batch", "1"},
	} {
		for _, name := range []string{session16Before, session16After} {
			start := time.Now()
			rep := scenariotest.Run(t, name, args...)
			if rep.Result().Verdict == "" {
				t.Errorf("%s %s: no verdict", name, strings.Join(args, " "))
			}
			t.Logf("%s %s: %s in %v", name, strings.Join(args, " "), rep.Result().Verdict, time.Since(start).Round(time.Millisecond))
		}
	}
	for _, args := range [][]string{{"--flaky-key", "PAY-004:0"}, {"--flaky-key", "PAY-004:1001"},
		{"--max-attempts", "1001", "--max-backoff", "1ms"}} {
		if err := scenariotest.Bind(t, session16After, args...).Validate(); err == nil {
			t.Errorf("%s accepted, want it refused", strings.Join(args, " "))
		}
	}
}
