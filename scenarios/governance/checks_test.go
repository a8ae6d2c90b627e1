package governance

import (
	"context"
	"testing"
	"time"

	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// These tests show that each check reads the truth and can fail: a check
// passes on a real run, then the run's record is edited the way a wrong
// implementation would have left it (a row persisted with another time than
// the policy decided, a provider call the drain should not have made, a log
// row with another count) and the same check must fail.

// tamper is one edit of what the sources of truth recorded.
type tamper struct {
	check string // the check that must catch it
	why   string // what a wrong implementation would have done
	edit  func(store, claim *driveRun)
}

// judged runs checks and returns the one called name.
func judged(t *testing.T, checks func(r *report.Report, store, claim *driveRun), store, claim *driveRun, name string) report.Check {
	t.Helper()
	r := report.New("test", report.Experiment)
	checks(r, store, claim)
	return checkNamed(t, r.Result(), name)
}

// mustCatch requires check to pass on the real run, as judge reads it, then
// to fail once edit has changed the record the way a wrong implementation
// would have left it (why).
func mustCatch(t *testing.T, judge func() report.Check, edit func(), check, why string) {
	t.Helper()
	if c := judge(); !c.Passed {
		t.Fatalf("on the real run %q failed: %s", check, c.Detail)
	}
	edit()
	if c := judge(); c.Passed {
		t.Errorf("%q passed although %s: %s", check, why, c.Detail)
	}
}

// catches drains spec in both modes for each tamper, requires its check to
// pass on the real runs and to fail once the runs are edited.
func catches(t *testing.T, spec driveSpec, checks func(r *report.Report, store, claim *driveRun), tampers []tamper) {
	t.Helper()
	for _, tt := range tampers {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			store, claim, err := driveBoth(context.Background(), scenarios.NewEnv(t.TempDir()), spec)
			if err != nil {
				t.Fatal(err)
			}
			judge := func() report.Check { return judged(t, checks, store, claim, tt.check) }
			mustCatch(t, judge, func() { tt.edit(store, claim) }, tt.check, tt.why)
		})
	}
}

// callAt returns the index in run.calls of key's n-th call (0-based).
func callAt(t *testing.T, run *driveRun, key string, n int) int {
	t.Helper()
	for i, c := range run.calls {
		if c.Key == key {
			if n == 0 {
				return i
			}
			n--
		}
	}
	t.Fatalf("%s has no such call", key)
	return 0
}

// logAt returns the index in run.log of the drain's n-th transition of key (0-based).
func logAt(t *testing.T, run *driveRun, key string, n int) int {
	t.Helper()
	id := run.entry(key).ID
	for i, l := range run.log {
		if l.EntryID == id && l.Actor == run.owner {
			if n == 0 {
				return i
			}
			n--
		}
	}
	t.Fatalf("%s has no such transition", key)
	return 0
}

// entryAt returns the index in run.entries of key's final row.
func entryAt(run *driveRun, key string) int {
	for i, e := range run.entries {
		if e.Key == key {
			return i
		}
	}
	return -1
}

func validOptions[O any](t *testing.T, name string, args ...string) O {
	t.Helper()
	o := scenariotest.Bind(t, name, args...)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	return o.(O)
}

func TestThresholdChecksCatchAWrongImplementation(t *testing.T) {
	o := validOptions[*thresholdOptions](t, thresholdName)
	const schedule = "below the threshold a failure is retried on schedule"
	catches(t, driveSpec{flags: o.drain, entries: o.specs()}, o.checks, []tamper{
		{schedule, "the store persisted another NextRetryAtUtc than the policy decided", func(_, c *driveRun) {
			c.rows["GOV-002"][1].NextRetryAt = c.rows["GOV-002"][1].NextRetryAt.Add(time.Second)
		}},
		{schedule, "the drain waited a second longer than the schedule, and persisted that", func(_, c *driveRun) {
			c.rows["GOV-005"][2].NextRetryAt = c.rows["GOV-005"][2].NextRetryAt.Add(time.Second)
			i := callAt(t, c, "GOV-005", 3)
			c.calls[i].At = c.calls[i].At.Add(time.Second)
		}},
		{schedule, "the drain called the provider again a second late", func(s, _ *driveRun) {
			i := callAt(t, s, "GOV-005", 2)
			s.calls[i].At = s.calls[i].At.Add(time.Second)
		}},
		{schedule, "the drain emitted the entry again before it was due", func(_, c *driveRun) {
			i := callAt(t, c, "GOV-002", 3)
			c.calls[i].At = c.calls[i].At.Add(-time.Second)
		}},
		{"emitter errors and panics count as failures; the drain never crashed", "a panic was persisted without its code", func(_, c *driveRun) {
			c.rows["GOV-004"][0].LastErrorCode = "provider.unavailable"
		}},
		{"emitter errors and panics count as failures; the drain never crashed", "an error did not count toward RetryCount", func(s, _ *driveRun) {
			s.log[logAt(t, s, "GOV-003", 1)].RetryCount = 1
		}},
		{"emitter errors and panics count as failures; the drain never crashed", "a call has no persisted transition", func(s, _ *driveRun) {
			s.log = append(s.log[:logAt(t, s, "GOV-003", 0)], s.log[logAt(t, s, "GOV-003", 0)+1:]...)
		}},
		{"failed and retryable-failure results both count toward the threshold", "a retryable-failure was persisted as Failed", func(s, _ *driveRun) {
			s.log[logAt(t, s, "GOV-002", 0)].To = emission.Failed
		}},
		{"failed and retryable-failure results both count toward the threshold", "a retryable-failure did not count toward RetryCount",
			func(_, c *driveRun) { c.log[logAt(t, c, "GOV-002", 1)].RetryCount = 1 }},
		{"failed and retryable-failure results both count toward the threshold", "the provider never returned a retryable-failure",
			func(s, c *driveRun) {
				for _, run := range []*driveRun{s, c} {
					for i := range run.calls {
						if run.calls[i].Step.Result.Kind == emission.ResultRetryableFailure {
							run.calls[i].Step = unavailable
						}
					}
				}
			}},
		{"a provider-returned dead-letter is terminal at once", "the entry was emitted again after the provider's dead-letter", func(_, c *driveRun) {
			c.calls = append(c.calls, emission.Call{Key: "GOV-006", At: c.ended, Step: emission.Deliver()})
		}},
		{"a provider-returned dead-letter is terminal at once", "the row recorded the threshold's code instead of the provider's", func(_, c *driveRun) {
			c.rows["GOV-006"][0].ReasonCode = emission.DefaultDeadLetterReasonCode
		}},
		{"no automatic replay of terminal entries", "the pass a day later emitted a dead-letter", func(s, _ *driveRun) {
			s.calls = append(s.calls, emission.Call{Key: "GOV-002", At: s.laterAt, Step: unavailable})
		}},
		{"the failure being processed counts toward the threshold", "the dead-letter came one failure late", func(_, c *driveRun) {
			c.log[logAt(t, c, "GOV-002", 4)].RetryCount = 6
		}},
		{"the failure being processed counts toward the threshold", "a failure at the threshold left the entry live", func(s, _ *driveRun) {
			s.log[logAt(t, s, "GOV-003", 4)].To = emission.Failed
		}},
		{"threshold dead-letters carry the stable reason code and message", "the row recorded another reason", func(_, c *driveRun) {
			c.rows["GOV-003"][4].ReasonMessage = "poison"
		}},
	})
}

// The schedule is the documented one, computed on its own: a drain whose
// delays differ from the flags it was given is caught.
func TestRetryScheduleIsJudgedByTheFlagsNotThePolicy(t *testing.T) {
	o := validOptions[*thresholdOptions](t, thresholdName)
	store, claim, err := driveBoth(context.Background(), scenarios.NewEnv(t.TempDir()), driveSpec{flags: o.drain, entries: o.specs()})
	if err != nil {
		t.Fatal(err)
	}
	stated := *o.drain
	stated.RetryBackoff = 2 * time.Second
	r := report.New("test", report.Experiment)
	checkRetrySchedule(r, []*driveRun{store, claim}, &stated)
	if c := checkNamed(t, r.Result(), "below the threshold a failure is retried on schedule"); c.Passed {
		t.Errorf("a 1s drain judged against a 2s schedule passed: %s", c.Detail)
	}
	for _, tt := range []struct {
		base, cap time.Duration
		n         int
		want      time.Duration
	}{
		{time.Second, time.Minute, 1, time.Second},
		{time.Second, time.Minute, 4, 8 * time.Second},
		{time.Second, time.Minute, 7, time.Minute},
		{time.Second, 0, 31, 1 << 30 * time.Second},
		{time.Second, 0, 64, 1<<63 - 1},
		{0, time.Minute, 9, 0},
	} {
		if got := scheduledDelay(tt.base, tt.cap, tt.n); got != tt.want {
			t.Errorf("scheduledDelay(%v, %v, %d) = %v, want %v", tt.base, tt.cap, tt.n, got, tt.want)
		}
	}
}

func TestDeferredChecksCatchAWrongImplementation(t *testing.T) {
	o := validOptions[*deferredOptions](t, deferredName)
	catches(t, driveSpec{flags: o.drain, entries: o.specs()}, o.checks, []tamper{
		{"pending and deferred results never increment RetryCount", "a deferral was persisted as a failed attempt", func(_, c *driveRun) {
			c.rows["GOV-001"][2].RetryCount = 1
		}},
		{"pending is kept deferred like deferred", "a pending result was persisted as Failed", func(s, _ *driveRun) {
			s.log[logAt(t, s, "GOV-002", 1)].To = emission.Failed
		}},
		{"deferred entries stay eligible and come back when the emitter asked", "the store persisted another due time than the emitter asked", func(_, c *driveRun) {
			c.rows["GOV-003"][0].NextRetryAt = c.rows["GOV-003"][0].NextRetryAt.Add(time.Second)
		}},
		{"deferred entries stay eligible and come back when the emitter asked", "the entry came back late", func(s, _ *driveRun) {
			i := callAt(t, s, "GOV-002", 2)
			s.calls[i].At = s.calls[i].At.Add(2 * time.Millisecond)
		}},
		{"deferrals never consume the threshold", "the final row counts a deferral", func(_, c *driveRun) {
			c.entries[entryAt(c, "GOV-001")].RetryCount = 1
		}},
		{"only failed attempts reach the threshold", "a deferral reached the threshold", func(_, c *driveRun) {
			c.calls[callAt(t, c, "GOV-003", 0)].Step = unavailable
		}},
	})
}

func TestDisabledChecksCatchAWrongImplementation(t *testing.T) {
	o := validOptions[*disabledOptions](t, disabledName)
	catches(t, driveSpec{flags: o.drain, entries: o.specs(), host: o.hostReview}, o.checks, []tamper{
		{"failures stay eligible for retry past MaxRetryAttempts", "the threshold failure was persisted with no next retry", func(_, c *driveRun) {
			c.rows["GOV-001"][4].NextRetryAt = time.Time{}
		}},
		{"the host is told when the threshold passes without a dead-letter", "the sink alerted on a transition the log does not hold", func(_, c *driveRun) {
			c.log[logAt(t, c, "GOV-001", 4)].RetryCount = 4
		}},
		{"retry history is never reset", "the row counts a failure the provider never saw", func(_, c *driveRun) {
			c.calls[callAt(t, c, "GOV-001", 2)].Step = emission.Deliver()
		}},
		{"below the threshold a failure is retried on schedule", "the store persisted another NextRetryAtUtc", func(s, _ *driveRun) {
			s.rows["GOV-002"][0].NextRetryAt = s.rows["GOV-002"][0].NextRetryAt.Add(-time.Millisecond)
		}},
	})
}

func TestLegacyChecksCatchAWrongImplementation(t *testing.T) {
	o := validOptions[*legacyOptions](t, legacyName)
	catches(t, driveSpec{flags: o.drain, entries: o.specs()}, o.checks, []tamper{
		{"the legacy MaxRetryCount column is kept, default 5", "the drain rewrote the legacy column", func(s, _ *driveRun) {
			s.entries[entryAt(s, "GOV-003")].MaxRetryCount = 8
		}},
		{"retry selection is not suppressed by MaxRetryCount", "GOV-002 was never selected at or past its MaxRetryCount 3", func(_, c *driveRun) {
			for n := range 7 {
				c.log[logAt(t, c, "GOV-002", n)].RetryCount = 1
			}
		}},
		{"a failure at MaxRetryCount creates no terminal transition", "failure 3 of GOV-002 dead-lettered it", func(_, c *driveRun) {
			c.log[logAt(t, c, "GOV-002", 2)].To = emission.DeadLettered
		}},
		{"every entry dead-letters at MaxRetryAttempts 8, whatever its MaxRetryCount", "GOV-003 dead-lettered at 12", func(_, c *driveRun) {
			c.log[logAt(t, c, "GOV-003", 7)].RetryCount = 12
		}},
	})
}

func TestAlertChecksCatchAWrongImplementation(t *testing.T) {
	o := validOptions[*alertsOptions](t, alertsName)
	checks := func(r *report.Report, _, claim *driveRun) { o.checks(r, claim, nil) }
	catches(t, driveSpec{flags: o.drain, entries: o.specs()}, checks, []tamper{
		{"a repeated reason code on a provider raises its own alert", "the sink repeated an alert the rows do not justify", func(_, c *driveRun) {
			c.entries[entryAt(c, "GOV-002")].Provider = "northwind-ledger"
		}},
		{"a warning when retries reach MaxRetryAttempts-1, before any dead-letter", "the sink warned an entry that never reached 4 failures", func(_, c *driveRun) {
			c.log[logAt(t, c, "GOV-003", 3)].RetryCount = 3
		}},
		{"each event carries entry, correlation and receipt ids, reason code and attempt", "the event names another reason than the row", func(_, c *driveRun) {
			c.entries[entryAt(c, "GOV-001")].ReasonCode = "outbox.other"
		}},
	})
}

func TestAlertFieldsWithSpacesParse(t *testing.T) {
	l := emission.AlertLine{Text: "governance_outbox.dead_lettered entry=1 " + emission.Field("reason", `poison "x" = y`) + " " +
		emission.Field("provider", "acme audit") + " attempt=5/5 " + emission.Field("empty", "")}
	got := eventFields(l)
	want := map[string]string{"entry": "1", "reason": `poison "x" = y`, "provider": "acme audit", "attempt": "5/5", "empty": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %s = %q, want %q (line %s)", k, got[k], v, l.Text)
		}
	}
	if len(got) != len(want) {
		t.Errorf("parsed %d fields %q, want %d", len(got), got, len(want))
	}
	res := scenariotest.Run(t, alertsName, "--dead-letter-reason-code", "poison message").Result()
	if !res.Passed {
		t.Errorf("a reason code with a space failed the alert checks: %+v", res.Checks)
	}
}

func TestStaleChecksCatchAWrongImplementation(t *testing.T) {
	tests := []struct {
		scenario, check, why string
		edit                 func(run *staleRun)
	}{
		{staleBefore, "worker-A's lease expired while its provider call was still open", "A's claim, as persisted, had not expired when B claimed",
			func(run *staleRun) {
				run.claims[0].row.ClaimLeaseUntil = run.claims[0].row.ClaimLeaseUntil.Add(time.Hour)
			}},
		{staleAfter, "worker-A's lease expired while its provider call was still open", "A's answer was written before B called the provider",
			func(run *staleRun) { run.log[len(run.log)-1].At = run.started }},
		{staleAfter, "worker-B, the current claim owner, reached a terminal state", "B's claim carried no newer token than A's",
			func(run *staleRun) { run.claims[1].row.ClaimToken = 1 }},
		{staleBefore, "the terminal transition was lost", "the row right after A still read Delivered",
			func(run *staleRun) { run.afterA.Status = emission.Delivered }},
		{staleBefore, "the overwrite did real harm", "the provider's ledger holds one delivery",
			func(run *staleRun) { run.calls = run.calls[:2] }},
		{staleAfter, "worker-A's stale write was refused by the claim check", "the log shows A's write applied",
			func(run *staleRun) { run.log[len(run.log)-1].Applied = true }},
		{staleAfter, "the terminal row stands", "the final row's delivery time is not B's",
			func(run *staleRun) { run.entries[0].DeliveredAt = run.entries[0].DeliveredAt.Add(time.Second) }},
		{staleAfter, "delivered exactly once, no false dead-letter", "the provider's ledger holds a second delivery",
			func(run *staleRun) { run.calls = append(run.calls, run.calls[1]) }},
	}
	for _, tt := range tests {
		t.Run(tt.scenario+" "+tt.why, func(t *testing.T) {
			t.Parallel()
			o := validOptions[*staleOptions](t, tt.scenario)
			run, err := o.race(context.Background(), scenarios.NewEnv(t.TempDir()).Database, o.after)
			if err != nil {
				t.Fatal(err)
			}
			judge := func() report.Check {
				r := report.New("test", report.Experiment)
				if o.after {
					o.afterChecks(r, run, run.metrics())
				} else {
					o.beforeChecks(r, run, run.metrics())
				}
				return checkNamed(t, r.Result(), tt.check)
			}
			mustCatch(t, judge, func() { tt.edit(run) }, tt.check, tt.why)
		})
	}
}

func TestReplayChecksCatchAWrongImplementation(t *testing.T) {
	tests := []struct {
		check, why string
		edit       func(run *replayRun)
	}{
		{"the drain never replays a dead-letter", "the drain emitted an original after its dead-letter",
			func(run *replayRun) {
				run.calls = append(run.calls, emission.Call{Key: entryKey(1), At: run.ended, Step: emission.Deliver()})
			}},
		{"the original entry, its terminal reason and its history are preserved", "the replay rewrote the original's reason",
			func(run *replayRun) { run.entries[0].ReasonCode = "replayed" }},
		{"replays go out in controlled batches", "the provider's ledger shows a replay throttled",
			func(run *replayRun) { run.throttle.Admit(entryKey(3)+"-R1", run.batches[0].at) }},
		{"replays go out in controlled batches", "a batch's calls included the next batch's replays",
			func(run *replayRun) { run.batches[0].till = run.batches[1].till }},
		{"an incident closes only on a provider-side receipt", "an incident was closed citing the ticket",
			func(run *replayRun) { run.incidents[0].ProviderReceipt = "INC-4471" }},
		{"a replay without a recorded cause and fix is refused and writes nothing", "the store accepted a replay with no cause or fix",
			func(run *replayRun) { run.uncaused = nil }},
		{"a replay without a recorded cause and fix is refused and writes nothing", "the refused replay left a row behind",
			func(run *replayRun) { run.writtenByNoFix = 1 }},
		{"every replay follows the runbook: terminal record confirmed, cause classified, fix recorded",
			"a replay recorded another cause than the original's failures show",
			func(run *replayRun) { run.remediations[1].Cause = "schema drift" }},
		{"every replay follows the runbook: terminal record confirmed, cause classified, fix recorded",
			"a replay recorded no fix", func(run *replayRun) { run.remediations[0].Fix = "" }},
		{"every replay follows the runbook: terminal record confirmed, cause classified, fix recorded",
			"a replay was recorded before its original's dead-letter was persisted",
			func(run *replayRun) { run.remediations[0].At = run.started }},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			o := validOptions[*replayOptions](t, replayName)
			run, err := o.replay(context.Background(), scenarios.NewEnv(t.TempDir()).Database)
			if err != nil {
				t.Fatal(err)
			}
			judge := func() report.Check {
				r := report.New("test", report.Experiment)
				o.checks(r, run)
				return checkNamed(t, r.Result(), tt.check)
			}
			mustCatch(t, judge, func() { tt.edit(run) }, tt.check, tt.why)
		})
	}
}

func TestDeadLetterRaceChecksCatchAWrongImplementation(t *testing.T) {
	const (
		stands    = "the dead-letter race: worker-A's stale write was refused; the owner's dead-letter stands"
		overwrote = "the dead-letter race: worker-A's late write overwrote the owner's dead-letter"
	)
	tests := []struct {
		scenario, check, why string
		edit                 func(run *staleRun)
	}{
		{staleAfter, stands, "the dead-lettered entry was emitted again", func(run *staleRun) {
			run.calls = append(run.calls, emission.Call{Key: entryKey(2), At: run.ended.Add(time.Second), Step: rejected})
		}},
		{staleAfter, stands, "the row right after A's write was live again", func(run *staleRun) { run.afterA.Status = emission.Failed }},
		{staleAfter, stands, "the log shows A's write applied", func(run *staleRun) { run.log[len(run.log)-1].Applied = true }},
		{staleAfter, stands, "the final row lost the provider's reason", func(run *staleRun) { run.entries[0].ReasonCode = "" }},
		{staleBefore, overwrote, "A's write was not applied", func(run *staleRun) {
			for i, l := range run.log {
				if l.Actor == workerA {
					run.log[i].Applied = false
				}
			}
		}},
		{staleBefore, overwrote, "the row right after A still read B's dead-letter", func(run *staleRun) {
			run.afterA.Status, run.afterA.ReasonCode = emission.DeadLettered, rejected.Result.Code
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario+" "+tt.why, func(t *testing.T) {
			t.Parallel()
			o := validOptions[*staleOptions](t, tt.scenario)
			run, err := o.raceOn(context.Background(), scenarios.NewEnv(t.TempDir()).Database, o.after, o.deadSpec())
			if err != nil {
				t.Fatal(err)
			}
			judge := func() report.Check {
				r := report.New("test", report.Experiment)
				if o.after {
					o.deadAfterChecks(r, side(run))
				} else {
					o.deadBeforeChecks(r, side(run))
				}
				return checkNamed(t, r.Result(), tt.check)
			}
			mustCatch(t, judge, func() { tt.edit(run) }, tt.check, tt.why)
		})
	}
}
