package wassal

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

func parse(t *testing.T, naive bool, args ...string) *session16Options {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o := bindSession16(fs, !naive)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestSession16Validate(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string // empty: valid
	}{
		{nil, ""},
		{[]string{"--poison-key", "PAY-002,PAY-004", "--declined-key", "none"}, ""},
		{[]string{"--payments", "4"}, "--payments must be between 5 and 500, got 4"},
		{[]string{"--payments", "501"}, "--payments must be between 5 and 500, got 501"},
		{[]string{"--poison-key", "PAY-006"}, ""},
		{[]string{"--poison-key", "PAY-007"}, `--poison-key "PAY-007" is not a seeded payment (PAY-001..PAY-006)`},
		{[]string{"--poison-key", "PAY-003,PAY-003"}, `--poison-key "PAY-003" is listed twice`},
		{[]string{"--declined-key", "PAY-003"}, "is also a poison key"},
		{[]string{"--declined-key", "PAY-077"}, `--declined-key "PAY-077" is not a seeded payment`},
		{[]string{"--max-attempts", "-2"}, "--max-attempts must be between 1 and 34, got -2"},
		// 34 attempts back off 200 ms × (2^33 - 1) in all, under a century; 35 would not.
		{[]string{"--max-attempts", "34"}, ""},
		{[]string{"--max-attempts", "35"}, "--max-attempts 35 backing off from --base-backoff 200ms, doubling with no " +
			"--max-backoff, would move the scenario clock more than 100 years: at most 34, or set --max-backoff"},
		{[]string{"--max-attempts", "1000", "--max-backoff", "1s"}, ""},
		{[]string{"--max-attempts", "1001", "--max-backoff", "1s"}, "--max-attempts must be between 1 and 1000, got 1001"},
		{[]string{"--max-attempts", "1000", "--max-backoff", "1s", "--poison-key", "PAY-002,PAY-003"}, "at most 2000"},
		{[]string{"--retry-cap", "0"}, "--retry-cap must be between 1 and 1000, got 0"},
		{[]string{"--base-backoff", "-1ms"}, "--base-backoff must be between 0s and 24h, got -1ms"},
		{[]string{"--lease", "0s"}, "--lease must be between 1ms and 24h, got 0s"},
		{[]string{"--batch", "0"}, "--batch must be between 1 and 100, got 0"},
		{[]string{"--flaky-key", "PAY-004:2"}, ""},
		{[]string{"--flaky-key", "PAY-004:1000"}, ""},
		{[]string{"--flaky-key", "PAY-004:1001"}, `--flaky-key's N must be between 1 and 1000, got "1001"`},
		{[]string{"--flaky-key", "PAY-004:x"}, `--flaky-key's N must be between 1 and 1000, got "x"`},
		{[]string{"--flaky-key", "PAY-004"}, "needs how many times it fails: KEY:N"},
		{[]string{"--flaky-key", "none:2"}, "names no key"},
		{[]string{"--flaky-key", "PAY-009:2"}, `--flaky-key "PAY-009" is not a seeded payment`},
		{[]string{"--flaky-key", "PAY-005:2"}, "is also the declined key"},
		{[]string{"--flaky-key", "PAY-003:2"}, "is also a poison key"},
		{[]string{"--max-attempts", "30"}, ""}, // the demo cap no longer stops the policy
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := parse(t, false, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func runDesign(t *testing.T, naive bool, args ...string) (*session16Options, *session16Run) {
	t.Helper()
	name := session16After
	if naive {
		name = session16Before
	}
	return driveDesign(t, (*session16Options).drive, name, naive, args...)
}

func TestSession16MetricsFollowTheFlags(t *testing.T) {
	tests := []struct {
		name         string
		naive        bool
		args         []string
		wantAttempts int
		wantCalls    int
		wantFailed   int
		wantBackoffs []time.Duration
		wantHealthy  int
		wantCapped   bool
	}{
		{"after defaults", false, nil, 3, 8, 3, []time.Duration{200 * ms, 400 * ms}, 5, false},
		{"before defaults", true, nil, 10, 15, 10, nil, 5, true},
		{"after five attempts", false, []string{"--max-attempts", "5"}, 5, 10, 5,
			[]time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms}, 5, false},
		{"after with a backoff cap", false, []string{"--max-attempts", "5", "--max-backoff", "500ms"}, 5, 10, 5,
			[]time.Duration{200 * ms, 400 * ms, 500 * ms, 500 * ms}, 5, false},
		{"before starving the queue", true, []string{"--batch", "1"}, 10, 12, 10, nil, 2, true},
		{"after with the exit off", false, []string{"--dead-letter=false", "--retry-cap", "4"}, 4, 9, 4,
			[]time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms}, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, run := runDesign(t, tt.naive, tt.args...)
			f := o.metrics(run)
			if !report.AllEqual(f.poisonAttempts, tt.wantAttempts) {
				t.Errorf("poison attempts %v, want %d", f.poisonAttempts, tt.wantAttempts)
			}
			if f.calls != tt.wantCalls || f.failedCalls != tt.wantFailed {
				t.Errorf("provider calls %d (%d failed), want %d (%d failed)", f.calls, f.failedCalls, tt.wantCalls, tt.wantFailed)
			}
			if joinMillis(f.backoffs) != joinMillis(tt.wantBackoffs) {
				t.Errorf("backoffs [%s], want [%s]", joinMillis(f.backoffs), joinMillis(tt.wantBackoffs))
			}
			if f.healthyProcessed != tt.wantHealthy {
				t.Errorf("healthy processed %d, want %d", f.healthyProcessed, tt.wantHealthy)
			}
			if run.capped != tt.wantCapped {
				t.Errorf("capped = %v, want %v", run.capped, tt.wantCapped)
			}
			if got := report.JoinStrings(f.poisonPayments); got != "PendingConfirmation" {
				t.Errorf("poison payment %s, want PendingConfirmation: a retry policy never invents an outcome", got)
			}
		})
	}
}

const ms = time.Millisecond

func TestLedgerCatchesFakeOutcomes(t *testing.T) {
	p := provider.New(provider.Rule{Outcome: provider.Paid})
	p.Script("PAY-002", provider.Rule{Outcome: provider.Declined})
	a, _ := p.CheckStatus(context.Background(), "PAY-001", time.Time{})
	p.CheckStatus(context.Background(), "PAY-002", time.Time{})
	l := Ledger{Calls: p.Calls(), Payments: []outbox.Payment{
		{Key: "PAY-001", Status: outbox.Paid, ProviderTransactionID: a.TransactionID}, // honest
		{Key: "PAY-002", Status: outbox.Paid, ProviderTransactionID: "MADE-UP"},       // provider declined it
		{Key: "PAY-003", Status: outbox.Failed},                                       // provider never asked
		{Key: "PAY-003", Status: outbox.PendingConfirmation},                          // honest, and a duplicate
	}}
	if got := l.FakeSuccesses(); got != 2 {
		t.Errorf("FakeSuccesses() = %d, want 2", got)
	}
	paid, other, without := l.TxIDs(p)
	if paid != 1 || other != 0 || without != 1 {
		t.Errorf("TxIDs() = %d, %d, %d; want 1 Paid with a provider id, 0 others with ids, 1 Paid without", paid, other, without)
	}
	if dupPay, _ := l.DuplicateRows(); dupPay != 1 {
		t.Errorf("duplicate payment rows %d, want 1", dupPay)
	}
}

func TestDay16PairIsRegistered(t *testing.T) {
	for _, name := range []string{session16Before, session16After, "poison-retried-forever", "retry-with-dead-letter"} {
		if scenarios.Lookup(name) == nil {
			t.Errorf("%s is not registered", name)
		}
	}
}

// With one message per poll the first poison message starves the second; the
// demo cap must still stop the run rather than wait for both to reach it.
func TestSession16CapStopsWhenOnePoisonStarvesAnother(t *testing.T) {
	for _, naive := range []bool{true, false} {
		o, run := runDesign(t, naive, "--poison-key", "PAY-001,PAY-002", "--batch", "1", "--dead-letter=false")
		f := o.metrics(run)
		if !naive {
			// The policy's backoff lets PAY-002 through between PAY-001's attempts,
			// one step behind it, so the cap stops the run with PAY-002 at 9.
			if !run.capped || report.JoinInts(f.poisonAttempts) != "10, 9" {
				t.Errorf("AFTER without the exit: capped %v, attempts %s; want capped at 10, 9", run.capped, report.JoinInts(f.poisonAttempts))
			}
			continue
		}
		if !run.capped || report.JoinInts(f.poisonAttempts) != "10, 0" || strings.Join(run.cappedKeys, ",") != "PAY-001" {
			t.Errorf("BEFORE: capped %v by %v, attempts %s; want capped by PAY-001 at 10, 0", run.capped, run.cappedKeys, report.JoinInts(f.poisonAttempts))
		}
	}
}

func TestSession16DurationsStayInsideStorableTime(t *testing.T) {
	for _, args := range [][]string{{"--base-backoff", "25h"}, {"--max-backoff", "2000000h"}, {"--lease", "2562047h"}} {
		if err := parse(t, false, args...).Validate(); err == nil {
			t.Errorf("Validate(%v) accepted a duration that overflows the stored time format", args)
		}
	}
}

// The Day 16 BEFORE runs on Day 15's store and the AFTER on Day 16's: the
// tables the runs really created (what --schema shows) have the retry
// columns and the DeadLettered status only in the AFTER, and no audit log in either.
func TestSession16StoresHaveTheirDaysSchema(t *testing.T) {
	t.Parallel()
	for _, naive := range []bool{true, false} {
		_, run := runDesign(t, naive)
		var outboxSQL string
		for _, tb := range run.tables {
			if tb.Name == "AuditLog" {
				t.Errorf("naive=%v: the store has an AuditLog; it arrives with Day 17", naive)
			}
			if tb.Name == "OutboxMessages" {
				outboxSQL = tb.SQL
			}
		}
		for _, retry := range []string{"MaxAttempts", "NextAttemptUtc", "LastError", "'DeadLettered'"} {
			if got := strings.Contains(outboxSQL, retry); got == naive {
				t.Errorf("naive=%v: OutboxMessages has %s: %v, want %v\n%s", naive, retry, got, !naive, outboxSQL)
			}
		}
		for _, lease := range []string{"LockedUntilUtc", "ClaimToken", "AttemptCount"} {
			if !strings.Contains(outboxSQL, lease) {
				t.Errorf("naive=%v: OutboxMessages lacks Day 15's %s\n%s", naive, lease, outboxSQL)
			}
		}
	}
}

// What the help and the report say of the claim size: the course's numbers
// (5/5 healthy, 15 status checks) need more than one message per poll; with
// --batch 1 the poison at the head of the queue starves the rest: 2/5 and 12.
func TestSession16ClaimSizeAsTheHelpSays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args           []string
		healthy, calls int
	}{
		{nil, 5, 15},
		{[]string{"--batch", "1"}, 2, 12},
	} {
		o, run := runDesign(t, true, tc.args...)
		f := o.metrics(run)
		if f.healthyProcessed != tc.healthy || f.healthy != 5 || f.calls != tc.calls {
			t.Errorf("BEFORE %v: healthy %d/%d, %d status checks; want %d/5 and %d", tc.args, f.healthyProcessed, f.healthy, f.calls, tc.healthy, tc.calls)
		}
	}
	if !strings.Contains(scenarios.Lookup(session16Before).Long, "2/5 healthy processed, 12 status checks") {
		t.Error("the BEFORE's help no longer states what --batch 1 does")
	}
}

// The timeline shows the polls: with --batch 1 the naive loop's poll claims
// only the poison while the messages behind it are due, and a check reads
// the starvation from the rows; the AFTER's backoff lets them through, and
// the LIMIT 1 note is a footnote after the story, not in the setup.
func TestSession16PollsShowTheStarvation(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session16Before, "--batch", "1")
	wantLines(t, rep,
		"09:00:00.000Z  —        poll claims only PAY-003; 3 due messages wait behind it (PAY-004..PAY-006)",
		"09:00:00.000Z  —        9 more polls each claim only PAY-003; the same 3 still wait behind it",
		"09:00:00.000Z  PAY-003  attempts 2..10/∞  each FAILED the same way, at the same instant")
	wantChecks(t, rep, map[string]string{"the poison starves the messages behind it": "PASS the 3 messages behind PAY-003 " +
		"never claimed (AttemptCount 0, no status check): PAY-004, PAY-005, PAY-006"})
	wantFootnote(t, rep, "PAY-003 at the head of the queue was claimed at every poll, and 3 messages behind it never were")

	rep = scenariotest.Run(t, session16After, "--batch", "1")
	wantChecks(t, rep, map[string]string{"no message starved behind the poison": "PASS every one of the 3 messages behind PAY-003 claimed"})
	wantLines(t, rep, "09:00:00.201Z  —        poll claims only PAY-003; nothing else is due",
		"09:00:00.602Z  —        poll claims nothing, and no message waits on a backoff: the worker stops")
	wantFootnote(t, rep, "while PAY-003 waited out its backoff, the polls claimed the 3 messages behind it")

	// No backoff and no exit: the AFTER's poison holds the queue too, and its check says so.
	rep = scenariotest.Run(t, session16After, "--batch", "1", "--base-backoff", "0s", "--dead-letter=false")
	wantFail(t, rep, "no message starved behind the poison", "the 3 messages behind PAY-003 never claimed")

	// The default batch cannot be filled by the poison: no starvation check, and the
	// setup claims none.
	rep = scenariotest.Run(t, session16After)
	if slices.ContainsFunc(rep.Result().Checks, func(c report.Check) bool { return strings.Contains(c.Name, "starv") }) {
		t.Error("a starvation check is recorded where the batch holds more than the poison")
	}
	wantFootnote(t, rep, "With --batch 1 the backoff takes the poison out of the way")
}

// The starvation check reads the rows and the provider's ledger, not the timeline.
func TestSession16StarvationCheckReadsTheRows(t *testing.T) {
	t.Parallel()
	o, run := runDesign(t, false, "--batch", "1")
	judge := func() *report.Report { return judged(func(r *report.Report) { o.afterChecks(r, o.metrics(run)) }) }
	wantPass(t, judge(), "no message starved behind the poison")
	run.ledger.Messages = slices.Clone(run.ledger.Messages)
	run.ledger.Messages[indexOfKey(run.ledger.Messages, "PAY-005", messageKey)].AttemptCount = 0
	run.ledger.Calls = slices.DeleteFunc(slices.Clone(run.ledger.Calls), func(c provider.Call) bool { return c.Key == "PAY-005" })
	wantFail(t, judge(), "no message starved behind the poison", "1 of the 3 messages behind PAY-003 never claimed")
}

// wantFootnote fails the test unless the report's story ends with a note
// containing text, after the per-message table and before the metrics, and
// the setup says nothing of LIMIT 1.
func wantFootnote(t *testing.T, rep *report.Report, text string) {
	t.Helper()
	body := rep.Body()
	note := strings.Index(body, "\nNote: ")
	table, metrics := strings.Index(body, "## Per-message table"), strings.Index(body, "## Real BEFORE vs AFTER metrics")
	if note < table || note > metrics {
		t.Fatalf("no note between the per-message table and the metrics")
	}
	if got := strings.Join(strings.Fields(body[note:metrics]), " "); !strings.Contains(got, text) {
		t.Errorf("note %q lacks %q", got, text)
	}
	if setup := body[:strings.Index(body, "## Timeline")]; strings.Contains(setup, "LIMIT 1") || strings.Contains(setup, "starve") {
		t.Errorf("the setup still speaks of the claim's size:\n%s", setup)
	}
}
