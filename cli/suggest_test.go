package cli

import (
	"bytes"
	"outboxlab/cli/cmdutil"
	"slices"
	"strings"
	"testing"
)

const day16Pair = "session-16-poison-message-retried-forever or session-16-retry-with-dead-letter"

// Mistakes get the right hint, still as one line and exit 2.
func TestMistakesGetTheRightHint(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"retry-with-dead-leter"}, "did you mean retry-with-dead-letter?"},
		{[]string{"session16"}, "did you mean session-16-poison-message-retried-forever or session-16-retry-with-dead-letter?"},
		{[]string{"lsit"}, "did you mean list?"},
		// A Day named the way the course names it gets that Day's pair.
		{[]string{"day16"}, `"day16" for "outboxlab"; did you mean ` + day16Pair + "?"},
		{[]string{"16"}, `"16" for "outboxlab"; did you mean ` + day16Pair + "?"},
		{[]string{"day-16"}, "did you mean " + day16Pair + "?"},
		{[]string{"Day 16"}, "did you mean " + day16Pair + "?"},
		{[]string{"day", "16"}, `"day 16" for "outboxlab"; did you mean ` + day16Pair + "?"},
		{[]string{"session-16"}, "did you mean " + day16Pair + "?"},
		{[]string{"day13"}, "did you mean session-13-pending-lost-on-restart or session-13-durable-reconciliation?"},
		{[]string{"99"}, `unknown command "99" for "outboxlab" (outboxlab list shows them all)`},
		{[]string{"help", "session-16"}, `no help for "session-16": it is not a command; did you mean ` + day16Pair + "?"},
		{[]string{"help", "day16"}, "did you mean " + day16Pair + "?"},
		{[]string{"help", "xyzzy"}, `no help for "xyzzy": it is not a command (see outboxlab --help)`},
		// A key in the wrong letter case, in every family that takes keys.
		{[]string{"session-16-retry-with-dead-letter", "--poison-key", "pay-003", "--no-report"},
			`--poison-key "pay-003" is not a key (letter case matters); did you mean PAY-003?`},
		{[]string{"governance-host-replay", "--rejected-key", "gov-003", "--no-report"}, "did you mean GOV-003?"},
		{[]string{"ordered-orphan", "--failing-message", "paymentreceived", "--no-report"}, "did you mean PaymentReceived?"},
		{[]string{"xyzzy"}, `unknown command "xyzzy" for "outboxlab" (outboxlab list shows them all)`},
		{[]string{"retry-with-dead-letter", "--max-attempt", "5"}, "unknown flag: --max-attempt; did you mean --max-attempts?"},
		{[]string{"retry-with-dead-letter", "--dead-letter", "false"}, `got "false"; a true/false flag takes its value after =, as in --dead-letter=false`},
		{[]string{"list", "--json", "false"}, "as in --json=false"},
		// A mistyped scenario with flags: the name is the mistake, not the flag.
		{[]string{"retry-with-dead-leter", "--no-report"}, `unknown command "retry-with-dead-leter" for "outboxlab"; did you mean retry-with-dead-letter?`},
		{[]string{"session16", "--max-attempts", "5"}, "did you mean session-16-poison-message-retried-forever or session-16-retry-with-dead-letter?"},
		{[]string{"--no-report", "retry-with-dead-leter"}, "did you mean retry-with-dead-letter?"},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"--no-report", "list"}, "unknown flag: --no-report"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Main(tt.args, &stdout, &stderr)
		if code != cmdutil.ExitUsage {
			t.Errorf("%q: exit %d, want %d", tt.args, code, cmdutil.ExitUsage)
		}
		if got := stderr.String(); !strings.Contains(got, tt.want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%q: stderr = %q, want one line containing %q", tt.args, got, tt.want)
		}
	}
	// A stray word that is not true or false gets no true/false hint.
	var stdout, stderr bytes.Buffer
	Main([]string{"retry-with-dead-letter", "extra"}, &stdout, &stderr)
	if strings.Contains(stderr.String(), "true/false") {
		t.Errorf("stray word explained as a bool: %q", stderr.String())
	}
}

func TestClosest(t *testing.T) {
	names := []string{"list", "all", "compare", "session-16-retry-with-dead-letter", "retry-with-dead-letter"}
	tests := []struct {
		typed string
		want  []string
	}{
		{"retry-with-dead-leter", []string{"retry-with-dead-letter"}},
		{"Session16Retry", []string{"session-16-retry-with-dead-letter"}},
		{"cmopare", []string{"compare"}},
		{"zzzzzzzz", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := cmdutil.Closest(tt.typed, names); !slices.Equal(got, tt.want) {
			t.Errorf("closest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func TestHeaderCommandLineCanBeRunAgain(t *testing.T) {
	for arg, want := range map[string]string{
		"--batch":             "--batch",
		"--reason=INC-1, ok":  "'--reason=INC-1, ok'",
		"poison message":      "'poison message'",
		"it's":                `'it'\''s'`,
		"":                    "''",
		"postgres://u@h/db?x": "'postgres://u@h/db?x'",
	} {
		if got := shellQuote(arg); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", arg, got, want)
		}
	}
}
