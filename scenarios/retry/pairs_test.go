package retry

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

func TestVisibilityPairValidate(t *testing.T) {
	testValidate(t, queueBackoff, []validateCase{
		{nil, ""},
		{[]string{"--consumers", "0"}, "--consumers must be between 1 and 20, got 0"},
		{[]string{"--healthy", "-1"}, "--healthy must be between 0 and 50, got -1"},
		{[]string{"--max-attempts", "0"}, "--max-attempts must be between 1 and 50, got 0"},
		{[]string{"--visibility-timeout", "0s"}, "--visibility-timeout must be between 1ms and 1h, got 0s"},
		{[]string{"--hang", "500ms"}, "--hang must be between 1s and 1h, got 500ms"},
		{[]string{"--max-backoff", "1s"}, "--max-backoff 1s is below --base-backoff 5s"},
		{[]string{"--time-budget", "1.5ms"}, "--time-budget must be a whole number of milliseconds, got 1.5ms"},
	})
}

// runVisibility runs one scenario of the visibility pair and returns its
// metrics in a fixed order, and whether its checks passed.
func runVisibility(t *testing.T, name string, args ...string) (string, bool) {
	t.Helper()
	r := scenariotest.Run(t, name, args...)
	m := r.Result().Metrics
	return fmt.Sprintf("overlaps %v concurrent %v extra %v refused %v held-past-lease %v other-work %v sends %v dead %v retry-out %q time-out %q left %v",
		m["overlapping_holds"], m["concurrent_sends"], m["extra_deliveries"], m["refused_transitions"], m["held_past_lease"],
		m["other_work_sends"], m["sends"], m["dead_lettered"], m["retry_budget_exits"], m["time_budget_exits"], m["left"]), r.Passed()
}

func TestVisibilityPairMetricsFollowTheFlags(t *testing.T) {
	tests := []struct {
		name       string
		scenario   string
		args       []string
		want       string
		wantPassed bool
	}{
		{"held defaults", heldBackoff, nil,
			`overlaps 6 concurrent 14 extra 1 refused 5 held-past-lease 9 other-work 0 sends 28 dead 2 retry-out "" time-out "NTF-002,NTF-003" left 0`, true},
		{"queue defaults: one message out by each budget", queueBackoff, nil,
			`overlaps 0 concurrent 0 extra 0 refused 0 held-past-lease 0 other-work 3 sends 17 dead 2 retry-out "NTF-002" time-out "NTF-003" left 0`, true},
		// A lease shorter than a hanging send: even on the queue's timeline the next consumer takes the
		// message before the send ends, every holder's transition is refused, no budget can fire, and
		// NTF-003 goes round (about one claim per 20 s lease) until the 10 min demo cap. The last hold,
		// whose send the cap interrupted, overlaps the one before it too: the ledger holds its send.
		{"queue with a lease shorter than the hang", queueBackoff, []string{"--visibility-timeout", "20s"},
			`overlaps 29 concurrent 29 extra 0 refused 29 held-past-lease 0 other-work 3 sends 43 dead 1 retry-out "NTF-002" time-out "" left 1`, false},
		// A lease longer than every backoff: holding is wasteful but nobody else takes the message.
		{"held with a lease longer than every backoff", heldBackoff, []string{"--visibility-timeout", "10m"},
			`overlaps 0 concurrent 0 extra 0 refused 0 held-past-lease 0 other-work 0 sends 17 dead 2 retry-out "NTF-002" time-out "NTF-003" left 0`, false},
		// A time budget that never binds: its check is not exercised, so the run does not pass.
		{"queue with a time budget that never binds", queueBackoff, []string{"--time-budget", "10m"},
			`overlaps 0 concurrent 0 extra 0 refused 0 held-past-lease 0 other-work 3 sends 18 dead 2 retry-out "NTF-002,NTF-003" time-out "" left 0`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, passed := runVisibility(t, tt.scenario, tt.args...)
			if got != tt.want {
				t.Errorf("figures\n got %s\nwant %s", got, tt.want)
			}
			if passed != tt.wantPassed {
				t.Errorf("checks passed = %v, want %v", passed, tt.wantPassed)
			}
		})
	}
}

func TestStormPairValidate(t *testing.T) {
	testValidate(t, stormBreaker, []validateCase{
		{nil, ""},
		{[]string{"--messages", "0"}, "--messages must be between 1 and 100, got 0"},
		{[]string{"--messages", "101"}, "--messages must be between 1 and 100, got 101"},
		{[]string{"--max-attempts", "21"}, "--max-attempts must be between 1 and 20, got 21"},
		{[]string{"--messages", "100", "--max-attempts", "20"}, ""},
		{[]string{"--failures-to-open", "0"}, "--failures-to-open must be between 1 and 50, got 0"},
		{[]string{"--outage", "500ms"}, "--outage must be between 1s and 1h, got 500ms"},
		{[]string{"--outage-start", "-1s"}, "--outage-start must be a whole number of milliseconds between 0s and 10m0s, got -1s"},
		{[]string{"--cooldown", "0s"}, "--cooldown must be between 1ms and 1h, got 0s"},
		{[]string{"--max-backoff", "500ms"}, "--max-backoff 500ms is below --base-backoff 1s"},
	})
}

func TestStormPairCallsPerPhase(t *testing.T) {
	tests := []struct {
		name       string
		scenario   string
		args       []string
		want       string // calls before, during, after the outage; processed; dead-lettered; breaker opens; probes
		wantPassed bool
	}{
		{"no breaker defaults", stormNoBreaker, nil, "10 120 0 processed 10 dead 20 opens 0 probes 0", true},
		{"breaker defaults", stormBreaker, nil, "10 7 20 processed 30 dead 0 opens 3 probes 3", true},
		{"breaker opening sooner, probing later", stormBreaker, []string{"--failures-to-open", "3", "--cooldown", "30s"},
			"10 4 20 processed 30 dead 0 opens 2 probes 2", true},
		// Probing every 5 s spends the probe message's retry budget on the outage.
		{"breaker probing too often", stormBreaker, []string{"--cooldown", "5s"}, "10 16 19 processed 29 dead 1 opens 12 probes 12", false},
		// The breaker switched off: the AFTER side storms like the BEFORE one.
		{"breaker switched off", stormBreaker, []string{"--breaker=false"}, "10 120 0 processed 10 dead 20 opens 0 probes 0", false},
		// Enough attempts to outlast the outage: the storm is there, the dead letters are not.
		{"no breaker, attempts outlast the outage", stormNoBreaker, []string{"--max-attempts", "20"},
			"10 120 20 processed 30 dead 0 opens 0 probes 0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := scenariotest.Run(t, tt.scenario, tt.args...)
			m := r.Result().Metrics
			got := fmt.Sprint(m["calls_before_outage"], " ", m["calls_during_outage"], " ", m["calls_after_recovery"],
				" processed ", m["processed"], " dead ", m["dead_lettered"], " opens ", m["breaker_opens"], " probes ", m["probes"])
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if r.Passed() != tt.wantPassed {
				t.Errorf("checks passed = %v, want %v:\n%s", r.Passed(), tt.wantPassed, r.Body())
			}
		})
	}
}

// replayBreaker judges a ledger by the course's breaker rule alone: calls
// made during a cooldown are counted against the consumer.
func TestReplayBreakerJudgesTheLedger(t *testing.T) {
	at := func(s float64) time.Time { return clock.Start.Add(time.Duration(s * float64(time.Second))) }
	call := func(key string, s float64, ok bool) send {
		return send{key: key, at: at(s), done: at(s + 0.2), ok: ok}
	}
	outage := phase{from: at(1), to: at(30)}
	tests := []struct {
		name   string
		ledger []send
		want   string // opens probes failed-probes while-open tripping closed-after-recovery
	}{
		{"two failures open it, a failed probe after the cooldown reopens it, a good one closes it",
			[]send{call("A", 1, false), call("B", 1.2, false), call("A", 11.4, false), call("B", 31.6, true), call("C", 31.8, true)},
			"opens 2 probes 2 failed 1 while-open 0 tripping 2 closed true"},
		{"a call during the cooldown is made while it is open",
			[]send{call("A", 1, false), call("B", 1.2, false), call("C", 1.4, false), call("A", 40, true)},
			"opens 1 probes 1 failed 0 while-open 1 tripping 2 closed true"},
		{"a success resets the count: it never opens",
			[]send{call("A", 0, true), call("B", 1, false), call("C", 2, true), call("D", 3, false)},
			"opens 0 probes 0 failed 0 while-open 0 tripping 2 closed false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := replayBreaker(tt.ledger, 2, 10*time.Second, outage)
			got := fmt.Sprintf("opens %d probes %d failed %d while-open %d tripping %d closed %v",
				r.opens, r.probes, r.failedProbes, r.whileOpen, r.tripping, r.closedRecovery)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The AFTER checks read the gateway's ledger: one call slipped in during a
// cooldown fails the check that the consumer only trips the breaker and probes.
func TestCircuitBreakerChecksCatchACallWhileOpen(t *testing.T) {
	o := scenariotest.Bind(t, stormBreaker).(*stormOptions)
	dir := t.TempDir()
	before, err := o.drive(context.Background(), dialect.File(filepath.Join(dir, "before.db")), false)
	if err != nil {
		t.Fatal(err)
	}
	after, err := o.drive(context.Background(), dialect.File(filepath.Join(dir, "after.db")), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tamper := range []bool{false, true} {
		run := *after
		gw := *after.gw
		run.gw = &gw
		if tamper { // one more call 1 s after the breaker opened at 09:00:03.000Z
			extra := send{key: "NTF-016", at: clock.Start.Add(4 * time.Second), done: clock.Start.Add(4200 * time.Millisecond)}
			i := slices.IndexFunc(gw.ledger, func(s send) bool { return s.at.After(extra.at) })
			gw.ledger = slices.Insert(slices.Clone(after.gw.ledger), i, extra)
		}
		run.read = o.metrics(&run)
		r := report.New(stormBreaker, report.After)
		o.breakerChecks(r, before.read, run.read)
		if c := scenariotest.CheckNamed(t, r, checkBreakerOnlyTrips); c.Passed == tamper {
			t.Errorf("with a call while open %v: passed = %v: %s", tamper, c.Passed, c.Detail)
		}
	}
}

// A failed check comes with what the flags did.
func TestStormPairSaysWhyItsChecksFailed(t *testing.T) {
	testWhy(t, []whyCase{
		{stormBreaker, []string{"--breaker=false"}, []string{"  WHY   --breaker=false switches the breaker off"}},
		{stormBreaker, []string{"--cooldown", "5s"},
			[]string{"        NTF-011 failed its 6 attempts, 5 of them as probes (one every 5 s of the 1 min outage)"}},
		// One attempt each: the messages that tripped the breaker are spent before any probe.
		{stormBreaker, []string{"--max-attempts", "1"},
			[]string{"  WHY   NTF-011, NTF-012, NTF-013, NTF-014, NTF-015 each failed 1 attempt before the breaker stopped"}},
		{stormNoBreaker, []string{"--max-attempts", "20"}, []string{"  WHY   --max-attempts 20 outlasts the 1 min outage (backoff 1 s doubling, capped at 30 s)"}},
	})
	outage := "the gateway went down 10 min after the start, when the consumer had sent every message"
	testNotExercised(t, []idleCase{
		{stormNoBreaker, []string{"--outage-start", "10m"}, []string{checkStormLoad, checkStormDead, checkStormCostly}, outage},
		{stormBreaker, []string{"--outage-start", "10m"}, []string{checkBreakerOnlyTrips, checkBreakerCallsFall, checkBreakerCloses}, outage},
		{stormNoBreaker, []string{"--max-attempts", "1"}, []string{checkStormLoad},
			"with --max-attempts 1 a failed message is dead-lettered at once: no retry reaches the gateway"},
	})
}
