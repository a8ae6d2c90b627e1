package ordered

import (
	"cmp"
	"strings"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// checkNamed finds a check by name; a missing name fails the test, so a
// renamed check cannot make an assertion pass by vanishing.
func checkNamed(t *testing.T, res report.Result, name string) report.Check {
	t.Helper()
	for _, c := range res.Checks {
		if c.Name == name {
			return c
		}
	}
	var got []string
	for _, c := range res.Checks {
		got = append(got, c.Name)
	}
	t.Fatalf("no check named %q; the checks are %q", name, got)
	return report.Check{}
}

// TestFailsWithFailsTheRightCheck runs every scenario with the flags its
// registration says make its checks fail, and names the check that must
// fail and the metric it must show. A BEFORE of the family has no legal flag
// under which its failure is exercised and not reproduced (the naive design
// always damages what follows a dead letter): its FailsWith is its
// NotExercisedWith, the order's last message, and the check is N/A.
func TestFailsWithFailsTheRightCheck(t *testing.T) {
	const na = report.OutcomeNotExercised
	tests := []struct {
		name, check, detail string
		outcome             report.Outcome
	}{
		{orphanName, "later messages applied without the state they need",
			"OrderShipped is order 42's last message: no later message could be applied without it; " +
				"give --failing-message OrderPlaced or PaymentReceived", na},
		{dependsOnName, "no orphan rows",
			"1 payment and 1 shipment with no order when idle; 0 payments and 0 shipments with no order at the end", ""},
		{cascadeName, "every later message of the order followed it into the DLQ",
			"OrderShipped is order 42's last message: no later message could follow it into the DLQ; " +
				"give --failing-message OrderPlaced or PaymentReceived", na},
		{poisonedName, "later messages parked, never handed to the handler", "0 / 2 parked; 6 handler attempts on them", ""},
		{corruptionName, "later messages applied while it sat in the DLQ",
			"OrderCancelled is order 42's last message: no later message could be applied while it sat in the DLQ; " +
				"give --failing-message OrderPlaced or PaymentReceived", na},
		{replayName, "a second replay is a no-op", "2 resent, 0 skipped as already applied, 2 applied again; order table CHANGED", ""},
		{blockKeyName, "blocking the key stopped no unrelated order", "2 orders, 4 records", ""},
		{failureEventName, "one failure event per dead letter, in its transaction",
			"0 events for 1 dead letter, 0 published at the dead letter's instant", ""},
		{permanentName, "the permanent failure was dead-lettered at its first attempt",
			"order-42/2 failed 3 attempts of 3; its DeadLetters row says 3", ""},
	}
	if len(tests) != len(names) {
		t.Fatalf("%d cases for %d scenarios", len(tests), len(names))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			flags := scenarios.Lookup(tt.name).FailsWith
			if len(flags) == 0 {
				t.Fatal("no FailsWith")
			}
			want := cmp.Or(tt.outcome, report.OutcomeBroken)
			// The SQLite run TestSameReportOnPostgres compares (scenariotest.Shared).
			res := scenariotest.Shared(t, tt.name, flags...).Result()
			if res.Passed {
				t.Errorf("%s %s passed, want its checks to fail", tt.name, strings.Join(flags, " "))
			}
			c := checkNamed(t, res, tt.check)
			if c.Passed || c.Outcome != want || c.Detail != tt.detail {
				t.Errorf("%s %s: check %q %s → %s\nwant %s → %s", tt.name, strings.Join(flags, " "), tt.check, c.Outcome, c.Detail, want, tt.detail)
			}
		})
	}
}

// TestNotExercisedSaysWhatToChange runs every scenario of the family with
// its NotExercisedWith flags: the check that judged nothing is N/A with a
// why that names the flag to change, every invariant still held, and the
// verdict repeats the why.
func TestNotExercisedSaysWhatToChange(t *testing.T) {
	tests := []struct{ name, check, flag string }{
		{orphanName, "later messages applied without the state they need", "--failing-message"},
		{dependsOnName, "later messages parked until their dependency is applied", "--failing-message"},
		{cascadeName, "every later message of the order followed it into the DLQ", "--failing-message"},
		{poisonedName, "later messages parked, never handed to the handler", "--failing-message"},
		{corruptionName, "later messages applied while it sat in the DLQ", "--failing-message"},
		{replayName, "later messages parked while it was dead", "--failing-message"},
		{blockKeyName, "pausing the partition stopped every other order behind the failure on it", "fewer --partitions"},
		{failureEventName, "later messages of the poisoned id parked", "--failing-message"},
		{permanentName, "later messages of the poisoned id parked", "--failing-message"},
	}
	if len(tests) != len(names) {
		t.Fatalf("%d cases for %d scenarios", len(tests), len(names))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			flags := scenarios.Lookup(tt.name).NotExercisedWith
			res := scenariotest.Run(t, tt.name, flags...).Result()
			c := checkNamed(t, res, tt.check)
			if c.Outcome != report.OutcomeNotExercised || c.Passed || !strings.Contains(c.Detail, "give "+tt.flag) {
				t.Errorf("%s: %q is %s → %s; want not exercised, naming %s", strings.Join(flags, " "), tt.check, c.Outcome, c.Detail, tt.flag)
			}
			for _, i := range res.Checks {
				if i.Role == report.RoleInvariant && i.Outcome != report.OutcomeHeld {
					t.Errorf("invariant %q is %s → %s", i.Name, i.Outcome, i.Detail)
				}
			}
			if !strings.HasPrefix(res.Verdict, report.VerdictNotExercised) || !strings.Contains(res.Verdict, c.Detail) {
				t.Errorf("verdict %q does not say %q", res.Verdict, c.Detail)
			}
		})
	}
}

// TestSwitchedOffRemedyIsSaid: a run whose remedy a flag switched off says so
// in its header, and the checks that judge the remedy fail.
func TestSwitchedOffRemedyIsSaid(t *testing.T) {
	tests := []struct {
		name  string
		flag  string
		check string
	}{
		{poisonedName, "--remember-poisoned=false", "correlation id remembered with the dead letter"},
		{blockKeyName, "--block-key=false", "replay applied in sequence order"},
		{failureEventName, "--publish=false", "one failure event per dead letter, in its transaction"},
		{dependsOnName, "--depends-on=false", "no record applied before its dependency"},
		{replayName, "--idempotent=false", "end state = in-order end state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := scenariotest.Run(t, tt.name, tt.flag)
			if !strings.Contains(r.Body(), "SWITCHED OFF by "+tt.flag+": ") {
				t.Errorf("the report does not say %s switched the remedy off", tt.flag)
			}
			if c := checkNamed(t, r.Result(), tt.check); c.Passed {
				t.Errorf("%s: %q passed → %s", tt.flag, tt.check, c.Detail)
			}
			// The run at the defaults is the golden's (cli's golden tests make it).
			if strings.Contains(scenariotest.Golden(t, tt.name), "SWITCHED OFF") {
				t.Error("the default run says its remedy is switched off")
			}
		})
	}
}

// TestPauseWithNobodyBehindCannotWin: on its own partition the failing order
// has no neighbour for a pause to stop, so the comparison proves nothing and
// the check says why.
func TestPauseWithNobodyBehindCannotWin(t *testing.T) {
	res := scenariotest.Run(t, blockKeyName, "--partitions", "16").Result()
	c := checkNamed(t, res, "pausing the partition stopped every other order behind the failure on it")
	want := "the log has no other order behind p10:1 on partition 10: the pause had nobody to stop, so the two runs " +
		"cannot differ; give fewer --partitions or more --orders, so that another order shares its partition"
	if c.Outcome != report.OutcomeNotExercised || c.Detail != want || res.Passed {
		t.Errorf("%s → %s\nwant not exercised → %s", c.Outcome, c.Detail, want)
	}
}

// The checks read the handler's ledger and the stored rows. These runs are
// built by hand so that the ledger and the rows disagree, as they would if
// the consumer miscounted: the check must follow the ledger and say so.
func TestChecksReadTheLedger(t *testing.T) {
	o := &options{Orders: 8, Partitions: 3, FailingOrder: 42, FailingMessage: OrderPlaced, MaxAttempts: 3}
	rec := keyedlog.Record{ID: 7, Partition: 0, Offset: 0, MessageID: "order-42/1", Key: "order-42", Type: OrderPlaced, Sequence: 1}
	failed := func(n int) []call {
		var out []call
		for range n {
			out = append(out, call{stage: beforeFix, rec: rec, err: &bugError{"bug"}, faulty: true})
		}
		return out
	}
	row := func(attempts int) snapshot {
		return snapshot{dead: []keyedlog.SetAside{{ID: 1, Queue: keyedlog.QueueDeadLetter, Record: rec, Attempts: attempts}}}
	}
	tests := []struct {
		desc   string
		run    *run
		passed bool
		detail string
	}{
		{"ledger and row agree", &run{log: []keyedlog.Record{rec}, idle: row(3), calls: failed(3)}, true, "order-42/1 after 3 / 3 attempts"},
		{"the row claims attempts the handler never saw", &run{log: []keyedlog.Record{rec}, idle: row(3), calls: failed(2)}, false,
			"order-42/1 after 2 / 3 attempts; its DeadLetters row says 3"},
		{"no dead letter stored", &run{log: []keyedlog.Record{rec}, calls: failed(3)}, false, "order-42/1 after 3 / 3 attempts; not in DeadLetters"},
	}
	for _, tt := range tests {
		r := &page{Report: report.New("test", report.After)}
		o.checkFailingDeadLettered(r, tt.run)
		c := checkNamed(t, r.Result(), "OrderPlaced dead-lettered after MaxAttempts")
		if c.Passed != tt.passed || c.Detail != tt.detail {
			t.Errorf("%s: passed %v → %s, want %v → %s", tt.desc, c.Passed, c.Detail, tt.passed, tt.detail)
		}
	}

	// A replay pass that handed the records over out of sequence order, or
	// not at all, fails whatever the replay tool reported.
	seq := func(seqs ...int) []call {
		var out []call
		for _, n := range seqs {
			out = append(out, call{stage: replayPass, rec: keyedlog.Record{Key: "order-42", Sequence: n}})
		}
		return out
	}
	replays := []keyedlog.ReplayResult{{Applied: 3}}
	for _, tt := range []struct {
		desc   string
		run    *run
		passed bool
		detail string
	}{
		{"in order", &run{calls: seq(1, 2, 3), replays: replays}, true, "sequences [1, 2, 3] applied, want [1, 2, 3]"},
		{"out of order", &run{calls: seq(1, 3, 2), replays: replays}, false, "sequences [1, 3, 2] applied, want [1, 2, 3]"},
		{"no replay", &run{calls: seq(1, 2, 3)}, false, "sequences [1, 2, 3] applied, want [1, 2, 3]; no replay ran"},
	} {
		r := &page{Report: report.New("test", report.After)}
		o.checkReplayInSequence(r, tt.run, 0)
		c := checkNamed(t, r.Result(), "replay applied in sequence order")
		if c.Passed != tt.passed || c.Detail != tt.detail {
			t.Errorf("%s: passed %v → %s, want %v → %s", tt.desc, c.Passed, c.Detail, tt.passed, tt.detail)
		}
	}
}

// TestStampSaysTheDay: scenario time can run past midnight (a fix after 24h,
// long backoffs); a time of day alone would run backwards in the timeline.
func TestStampSaysTheDay(t *testing.T) {
	start := clock.Start
	for _, tt := range []struct {
		at   time.Time
		want string
	}{
		{start, "09:00:00.000Z"},
		{start.Add(14*time.Hour + 59*time.Minute + 59*time.Second), "23:59:59.000Z"},
		{start.Add(15 * time.Hour), "00:00:00.000Z+1d"},
		{start.Add(24*time.Hour + 602*time.Millisecond), "09:00:00.602Z+1d"},
		{start.Add(49 * time.Hour), "10:00:00.000Z+2d"},
		{time.Time{}, "—"},
	} {
		if got := stamp(tt.at); got != tt.want {
			t.Errorf("stamp(%s) = %q, want %q", tt.at, got, tt.want)
		}
	}
}

// TestSecondReplayThatFailsIsNoNoOp: a consumer that is not idempotent
// replays OrderPlaced again, the order's primary key refuses it and the
// replay stops. The order table is unchanged, but the operator got a failed
// replay, not a no-op.
func TestSecondReplayThatFailsIsNoNoOp(t *testing.T) {
	res := scenariotest.Run(t, replayName, "--idempotent=false", "--failing-message", OrderPlaced).Result()
	c := checkNamed(t, res, "a second replay is a no-op")
	if c.Passed || res.Passed || !strings.HasPrefix(c.Detail, "3 to resend, 0 applied again, then 42#1 OrderPlaced FAILED (") ||
		!strings.HasSuffix(c.Detail, ") and the replay stopped; order table unchanged") {
		t.Errorf("passed %v → %s; want it failed on 42#1 with the order table unchanged", c.Passed, c.Detail)
	}
}

// TestReleaseWaitsForTheReplay: a hold released at the fix while a record of
// the id was never replayed breaks the rule for removing ids, whatever the
// timestamps say.
func TestReleaseWaitsForTheReplay(t *testing.T) {
	o := &options{Orders: 8, Partitions: 3, FailingOrder: 42, FailingMessage: PaymentReceived, MaxAttempts: 3}
	fix := clock.Start.Add(5 * time.Minute)
	rec2 := keyedlog.Record{ID: 4, MessageID: "order-42/2", Key: "order-42", CorrelationID: "order-42", Sequence: 2}
	rec3 := keyedlog.Record{ID: 7, MessageID: "order-42/3", Key: "order-42", CorrelationID: "order-42", Sequence: 3}
	base := func(calls ...call) *run {
		return &run{
			fixAt: fix,
			holds: []keyedlog.Hold{{ID: 1, Scope: keyedlog.ScopeCorrelation, Value: "order-42", ReleasedAt: fix}},
			end: snapshot{dead: []keyedlog.SetAside{{ID: 1, Record: rec2}},
				parked: []keyedlog.SetAside{{ID: 1, Record: rec3}}},
			calls: calls,
		}
	}
	for _, tt := range []struct {
		desc   string
		run    *run
		passed bool
		detail string
	}{
		{"both replayed", base(call{stage: replayPass, rec: rec2}, call{stage: replayPass, rec: rec3}), true,
			"order-42 released at 09:05:00.000Z"},
		{"one never replayed", base(call{stage: replayPass, rec: rec2}), false,
			"order-42 released at 09:05:00.000Z; 1 of its 2 set-aside records not replayed (42#3)"},
		{"one failed in the replay", base(call{stage: replayPass, rec: rec2}, call{stage: replayPass, rec: rec3, err: &bugError{"bug"}}), false,
			"order-42 released at 09:05:00.000Z; 1 of its 2 set-aside records not replayed (42#3)"},
	} {
		r := &page{Report: report.New("test", report.After)}
		o.checkReleasedAfterReplay(r, tt.run, "released after the replay")
		c := checkNamed(t, r.Result(), "released after the replay")
		if c.Passed != tt.passed || c.Detail != tt.detail {
			t.Errorf("%s: passed %v → %s, want %v → %s", tt.desc, c.Passed, c.Detail, tt.passed, tt.detail)
		}
	}
}
