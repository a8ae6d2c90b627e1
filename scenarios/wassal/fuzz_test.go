// The Day 16 options fuzzed through the same Bind, Parse and Validate the
// command line uses:
//
//	go test ./scenarios/wassal -run '^$' -fuzz '^FuzzSession16Options$' -fuzztime 10s
package wassal_test

import (
	"context"
	"flag"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	_ "outboxlab/scenarios/wassal" // registers the Day 16 pair
)

const day16 = "session-16-retry-with-dead-letter"

// Accepted options are run only up to this size, so one execution stays cheap.
const (
	maxRunPayments = 20
	maxRunRetryCap = 50
)

// day16Flags are the flags FuzzSession16Options sets, in its arguments' order.
var day16Flags = []string{"payments", "poison-key", "declined-key", "max-attempts", "base-backoff",
	"max-backoff", "retry-cap", "lease", "batch", "dead-letter"}

// FuzzSession16Options feeds arbitrary values for every Day 16 flag through
// the scenario's Bind, pflag's Parse and Validate, as the command line does.
// A value Parse refuses is a usage error; one Validate refuses must be
// refused in one line naming a flag. Options it accepts must run (when
// small enough to be cheap), twice to the same byte, and keep the scenario
// clock where the store can still order times and backoffs are honoured.
// Under -fuzz each accepted input also runs a second time, to the same byte.
func FuzzSession16Options(f *testing.F) {
	def := []string{"6", "PAY-003", "PAY-005", "3", "200ms", "0s", "10", "30s", "10", "true"}
	with := func(flag, value string) []string {
		args := append([]string(nil), def...)
		for i, name := range day16Flags {
			if name == flag {
				args[i] = value
			}
		}
		return args
	}
	// Accepted seeds run twice each, so most of them are refusals; the
	// examples from --help are in testdata/fuzz.
	for _, args := range [][]string{
		def,
		with("poison-key", "PAY-002,PAY-005"),
		with("poison-key", "none"),
		with("batch", "1"),
		with("declined-key", "none"),
		with("payments", "0"),
		with("payments", "x"),
		with("poison-key", "PAY-003,PAY-003"),
		with("poison-key", "PAY-007"),
		with("declined-key", "PAY-003"),
		with("max-attempts", "11"),
		with("retry-cap", "10001"),
		with("base-backoff", "-1ms"),
		with("lease", "0s"),
		with("dead-letter", "maybe"),
	} {
		f.Add(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9])
	}
	f.Fuzz(func(t *testing.T, payments, poison, declined, maxAttempts, base, maxBackoff, retryCap, lease, batch, deadLetter string) {
		values := []string{payments, poison, declined, maxAttempts, base, maxBackoff, retryCap, lease, batch, deadLetter}
		fs := pflag.NewFlagSet(day16, pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		opts := scenarios.Lookup(day16).Bind(fs)
		args := make([]string, len(values))
		for i, v := range values {
			args[i] = "--" + day16Flags[i] + "=" + v
		}
		if err := fs.Parse(args); err != nil {
			return // a usage error (exit 2) before anything runs
		}
		if err := opts.Validate(); err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.Contains(msg, "--") {
				t.Fatalf("Validate(%q) = %q, want one line naming the flag", args, msg)
			}
			return
		}
		if n, _ := fs.GetInt("payments"); n > maxRunPayments {
			return
		}
		if rc, _ := fs.GetInt("retry-cap"); rc > maxRunRetryCap {
			return
		}
		first := run(t, opts, args)
		// The golden reports already hold the seeds' bodies still; new
		// options found while fuzzing are run a second time to compare.
		if fuzzing() {
			if second := run(t, opts, args); first.Body() != second.Body() {
				t.Fatalf("two runs of %q differ:\n%s", args, report.Diff("first", first.Body(), "second", second.Body()))
			}
		}
		checkScenarioTime(t, fs, first, args)
	})
}

// fuzzing reports whether this is a -fuzz run rather than a plain go test
// replaying the seed corpus.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

func run(t *testing.T, opts scenarios.Options, args []string) *report.Report {
	t.Helper()
	// Not t.TempDir: a fuzz subtest's name holds '#', which no lab database path may.
	dir, err := os.MkdirTemp("", "fuzz-session16-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	rep, err := opts.Run(context.Background(), scenarios.NewEnv(dir))
	if err != nil {
		t.Fatalf("options %q were accepted but the run failed: %v", args, err)
	}
	if rep == nil || rep.Body() == "" {
		t.Fatalf("options %q: the run returned no report", args)
	}
	return rep
}

// checkScenarioTime checks where the scenario clock ended. The store keeps
// times as fixed-width text so that text order is time order; a time past
// year 9999 breaks that (a later backoff sorts first). And with the
// dead-letter exit on, the poison message's last attempt (at MaxAttempts, or
// at the demo cap when that is lower) comes after every backoff before it.
func checkScenarioTime(t *testing.T, fs *pflag.FlagSet, rep *report.Report, args []string) {
	t.Helper()
	end, _ := rep.Result().Metrics["scenario_end"].(string)
	at, err := time.Parse(clock.ISOLayout, end)
	if err != nil || clock.ISO(at) != end {
		t.Fatalf("options %q: the scenario ended at %q, not a time the store can order", args, end)
	}
	if on, _ := fs.GetBool("dead-letter"); !on {
		return
	}
	if slices.Contains(args, "--poison-key=none") {
		return // nothing fails, nothing backs off
	}
	// The demo cap may stop the run before MaxAttempts: then only the
	// backoffs before the cap's attempt had to pass.
	attempts, _ := fs.GetInt("max-attempts")
	if retryCap, _ := fs.GetInt("retry-cap"); retryCap < attempts {
		attempts = retryCap
	}
	base, _ := fs.GetDuration("base-backoff")
	ceiling, _ := fs.GetDuration("max-backoff")
	b := backoff.Backoff{Base: base, Cap: ceiling}
	earliest := clock.Start
	for attempt := 1; attempt < attempts; attempt++ {
		earliest = earliest.Add(b.Delay(attempt))
	}
	if at.Before(earliest) {
		t.Fatalf("options %q: the run ended at %s, before the poison message's %d backoffs could pass (%s): a backoff was not honoured",
			args, end, attempts-1, earliest.UTC().Format(time.RFC3339))
	}
}
