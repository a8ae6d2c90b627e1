package retry

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

func TestPoisonCounterValidate(t *testing.T) {
	testValidate(t, poisonCounter, []validateCase{
		{nil, ""},
		{[]string{"--lethal", "1,5", "--threshold", "1"}, ""},
		{[]string{"--messages", "0"}, "--messages must be between 1 and 100, got 0"},
		{[]string{"--lethal", "6"}, "--lethal 6 is not a message number (1..5)"},
		{[]string{"--lethal", "2,2"}, "--lethal 2 is listed twice"},
		{[]string{"--threshold", "0"}, "--threshold must be between 1 and 100, got 0"},
		{[]string{"--max-restarts", "100"}, ""},
		{[]string{"--max-restarts", "101"}, "--max-restarts must be between 1 and 100, got 101"},
	})
}

func TestSeedOracleReproducesTheSeedsTable(t *testing.T) {
	if got := seedPoisonCounter(5, []int{3}, 3, 12, false).String(); got != "12 14 12 2 0 3" {
		t.Errorf("on catch %s, want the course's 12 14 12 2 0 3", got)
	}
	if got := seedPoisonCounter(5, []int{3}, 3, 12, true).String(); got != "3 7 2 4 1 0" {
		t.Errorf("at delivery %s, want the course's 3 7 2 4 1 0", got)
	}
}

// Every case spawns real child processes that die on the lethal message; the
// metrics read back from their databases must be the course's algorithm's.
func TestPoisonCounterRealDeathsMatchTheSeedsAlgorithm(t *testing.T) {
	tests := []struct {
		args       []string
		messages   int
		lethal     []int
		threshold  int
		restarts   int
		wantPassed bool
	}{
		// The defaults are the golden report's; these vary every flag.
		{[]string{"--lethal", "2,4", "--max-restarts", "5"}, 5, []int{2, 4}, 3, 5, true},
		{[]string{"--messages", "3", "--lethal", "1", "--threshold", "2", "--max-restarts", "3"}, 3, []int{1}, 2, 3, true},
		// Too few restarts: the at-delivery run cannot empty the queue.
		{[]string{"--max-restarts", "2"}, 5, []int{3}, 3, 2, false},
		// Threshold 1 isolates every message on its first delivery, healthy ones too.
		{[]string{"--threshold", "1", "--max-restarts", "2"}, 5, []int{3}, 1, 2, false},
	}
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			t.Parallel() // each case waits on its own child processes
			r := scenariotest.Run(t, poisonCounter, tt.args...)
			m := r.Result().Metrics
			for _, pos := range []struct {
				key        string
				atDelivery bool
			}{{"on_catch", false}, {"at_delivery", true}} {
				got := fmt.Sprint(m["restarts_"+pos.key], " ", m["delivered_"+pos.key], " ", m["process_deaths_"+pos.key], " ",
					m["processed_"+pos.key], " ", m["dead_letters_"+pos.key], " ", m["remaining_"+pos.key])
				want := seedPoisonCounter(tt.messages, tt.lethal, tt.threshold, tt.restarts, pos.atDelivery).String()
				if got != want {
					t.Errorf("%s: restarts delivered deaths processed dead remaining = %s, want %s", pos.key, got, want)
				}
			}
			if r.Passed() != tt.wantPassed {
				t.Errorf("checks passed = %v, want %v:\n%s", r.Passed(), tt.wantPassed, r.Body())
			}
		})
	}
}

// The catch block exists and works for an error it can catch: the on-catch
// counter counts it and dead-letters at the threshold. Only a death skips it.
func TestOnCatchCounterCountsCatchableFailures(t *testing.T) {
	ctx := context.Background()
	o := scenariotest.Bind(t, poisonCounter, "--messages", "1", "--lethal", "1", "--threshold", "2").(*poisonOptions)
	store, err := outbox.Open(ctx, dialect.File(filepath.Join(t.TempDir(), "outbox.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := o.seed(ctx, store); err != nil {
		t.Fatal(err)
	}
	l := &lifetime{store: store, clock: clock.New(), name: "lifetime-1", threshold: 2,
		work: func(outbox.Claim) error { panic("malformed body") }}
	if _, err := l.run(ctx); err != nil {
		t.Fatal(err)
	}
	msgs, _ := store.Messages(ctx)
	var failures int
	store.DB().QueryRow(`SELECT Failures FROM CatchCounters`).Scan(&failures)
	if msgs[0].Status != outbox.DeadLettered || msgs[0].AttemptCount != 2 || failures != 2 {
		t.Errorf("status %s, AttemptCount %d, caught failures %d; want DeadLettered after 2 caught failures",
			msgs[0].Status, msgs[0].AttemptCount, failures)
	}
	if msgs[0].LastError != "job panicked: malformed body" {
		t.Errorf("LastError %q, want the caught panic", msgs[0].LastError)
	}
}

// The checks read what the runs left: a lifetime or a delivery missing from
// the audit log, or a death that was not a SIGKILL, fails them.
func TestPoisonCounterChecksCatchAWrongRun(t *testing.T) {
	t.Parallel()
	const (
		seedTable = "the table is the course's algorithm"
		audited   = "the audit log and the queue agree on every delivery"
		sigkill   = "every death was a real SIGKILL on a lethal message"
	)
	o := scenariotest.Bind(t, poisonCounter).(*poisonOptions)
	dir := t.TempDir()
	runs, err := o.superviseBoth(context.Background(), scenarios.NewEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	dropAudit := func(run *poisonRun, action string) {
		i := slices.IndexFunc(run.audit, func(a outbox.AuditEntry) bool { return a.Action == action })
		run.audit = slices.Delete(slices.Clone(run.audit), i, i+1)
	}
	tests := []struct {
		name       string
		tamper     func(runs []*poisonRun)
		wantFailed []string
	}{
		{"nothing wrong", func([]*poisonRun) {}, nil},
		{"a lifetime missing from the audit log", func(runs []*poisonRun) { dropAudit(runs[1], "started") }, []string{seedTable}},
		{"a death by another signal", func(runs []*poisonRun) { runs[0].lifetimes[4].signal = "terminated" }, []string{sigkill}},
		{"a delivery not counted", func(runs []*poisonRun) { runs[1].lifetimes[0].deliveries-- }, []string{seedTable, audited}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			copies := make([]*poisonRun, len(runs))
			for i, run := range runs {
				c := *run
				c.lifetimes = slices.Clone(run.lifetimes)
				copies[i] = &c
			}
			tt.tamper(copies)
			r := report.New(poisonCounter, report.Experiment)
			o.checks(r, []poisonMetrics{o.metrics(copies[0]), o.metrics(copies[1])})
			for _, name := range []string{seedTable, audited, sigkill} {
				c := scenariotest.CheckNamed(t, r, name)
				if want := slices.Contains(tt.wantFailed, name); c.Passed == want {
					t.Errorf("%q passed = %v, want %v: %s", name, c.Passed, !want, c.Detail)
				}
			}
		})
	}
}

// A failed check comes with what the flags did.
func TestPoisonCounterSaysWhyItsChecksFailed(t *testing.T) {
	testWhy(t, []whyCase{
		{poisonCounter, []string{"--threshold", "1", "--max-restarts", "2"},
			[]string{"  WHY   a threshold of 1 dead-letters every message at its first delivery, before its job runs:\n" +
				"        NTF-001, NTF-002, NTF-004, NTF-005 dead-lettered unprocessed at AttemptCount 1\n"}},
	})
	// Too few restarts for the counter: the bound, not isolation, ends the run.
	testNotExercised(t, []idleCase{{poisonCounter, []string{"--max-restarts", "2"},
		[]string{checkIsolated, checkQueueEmpties, checkHealthyProcessed, checkIsolationCost},
		"--max-restarts 2 stops the at-delivery run before the counter can isolate: isolating 1 lethal message at " +
			"threshold 3 costs 1 × (3 − 1) deaths, so it needs at least 3 lifetimes; raise --max-restarts to 3"}})
}

// Every message lethal: no healthy message to process, so the
// check that they are processed judged nothing and says so; at threshold 1
// no lifetime dies at delivery, and the SIGKILL invariant judges the deaths
// on catch without a "0 / 0" for the half that had none.
func TestPoisonCounterJudgesNoZeros(t *testing.T) {
	testNotExercised(t, []idleCase{{poisonCounter, []string{"--messages", "6", "--lethal", "1,2,3,4,5,6", "--threshold", "2"},
		[]string{checkHealthyProcessed},
		"--lethal names all 6 --messages: no healthy message to process; name fewer in --lethal or raise --messages"}})
	r := scenariotest.Run(t, poisonCounter, "--messages", "6", "--lethal", "1,2,3,4,5,6", "--threshold", "1")
	c := scenariotest.CheckNamed(t, r, checkHealthyProcessed)
	if c.Outcome != report.OutcomeNotExercised {
		t.Errorf("all lethal, threshold 1: %q is %s (%s), want not exercised", checkHealthyProcessed, c.Outcome, c.Detail)
	}
	c = scenariotest.CheckNamed(t, r, "every death was a real SIGKILL on a lethal message")
	if want := "12 / 12 child processes on catch; at delivery none died, 0 killed"; !c.Passed || c.Detail != want {
		t.Errorf("threshold 1: SIGKILL invariant passed %v, %q; want it held, %q", c.Passed, c.Detail, want)
	}
}
