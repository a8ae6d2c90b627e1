package retry

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

func TestBackoffSchedulesValidate(t *testing.T) {
	testValidate(t, backoffSchedules, []validateCase{
		{nil, ""},
		{[]string{"--attempts", "20", "--base", "1h", "--cap", "24h"}, ""},
		{[]string{"--base", "1h", "--cap", "1ms"}, ""},
		{[]string{"--cap", "1ms"}, ""},
		{[]string{"--cap", "0s"}, "--cap must be between 1ms and 24h, got 0s"},
		{[]string{"--base", "61m"}, "--base must be between 1ms and 1h, got 1h1m"},
		{[]string{"--attempts", "0"}, "--attempts must be between 1 and 20, got 0"},
		{[]string{"--attempts", "21"}, "--attempts must be between 1 and 20, got 21"},
		{[]string{"--base", "0s"}, "--base must be between 1ms and 1h, got 0s"},
		{[]string{"--fixed", "2500us"}, "--fixed must be a whole number of milliseconds, got 2.5ms"},
		{[]string{"--budget", "25h"}, "--budget must be between 1ms and 24h, got 25h"},
	})
}

// The want rows were printed by node v20 running the course's backoff.mjs with
// its constants changed to each case's flags: for immediate, fixed,
// exponential and exponential + cap, the wait at the last attempt, the total
// over all attempts, the retries that fit in the budget and the time they took.
func TestBackoffSchedulesMatchTheSeedsScript(t *testing.T) {
	tests := []struct {
		args []string
		want [4]string
	}{
		{nil, [4]string{"0 0 unlimited 0", "2000 16000 150 300000", "64000 127500 9 255500", "30000 91500 14 271500"}},
		{[]string{"--attempts", "12", "--cap", "10s"},
			[4]string{"0 0 unlimited 0", "2000 24000 150 300000", "1024000 2047500 9 255500", "10000 85500 33 295500"}},
		{[]string{"--fixed", "500ms", "--budget", "1m"},
			[4]string{"0 0 unlimited 0", "500 4000 120 60000", "64000 127500 6 31500", "30000 91500 6 31500"}},
		{[]string{"--base", "250ms", "--cap", "4s", "--fixed", "3s", "--attempts", "5", "--budget", "45s"},
			[4]string{"0 0 unlimited 0", "3000 15000 15 45000", "4000 7750 7 31750", "4000 7750 14 43750"}},
		// A cap below the base: Math.min(CAP, BASE × 2^(n-1)) is the cap every time.
		{[]string{"--cap", "100ms"},
			[4]string{"0 0 unlimited 0", "2000 16000 150 300000", "64000 127500 9 255500", "100 800 unlimited 100000"}},
	}
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			r := scenariotest.Run(t, backoffSchedules, tt.args...)
			m := r.Result().Metrics
			for i, key := range []string{"immediate", "fixed", "exponential", "exponential_cap"} {
				waits := m["waits_ms_"+key].([]int64)
				got := fmt.Sprint(waits[len(waits)-1], " ", m["total_ms_"+key], " ", m["fit_"+key], " ", m["budget_elapsed_ms_"+key])
				if got != tt.want[i] {
					t.Errorf("%s: last wait, total, fit, elapsed = %s, want %s", key, got, tt.want[i])
				}
			}
			// A cap that never bites leaves its checks unexercised; none may break.
			for _, c := range r.Result().Checks {
				if c.Outcome == report.OutcomeBroken {
					t.Errorf("%s broke: %s\n%s", c.Name, c.Detail, r.Body())
				}
			}
		})
	}
}

// The waits in the table are what the worker wrote to the outbox: the run
// leaves one dead-lettered message per schedule with attempts+1 attempts.
func TestBackoffSchedulesRunOnTheOutbox(t *testing.T) {
	r := scenariotest.Run(t, backoffSchedules, "--attempts", "3")
	body := r.Body()
	for _, want := range []string{
		"│ exponential + cap │ 4      │ 09:00:00.000Z │ 09:00:03.503Z │ DeadLettered │ 4            │",
		"│ total   │ 0         │ 6000      │ 3500        │ 3500              │",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// Each check fails when what it reads is wrong: a wait the worker persisted
// off the formula, a message that did not end dead-lettered, a budget table
// off the course's loop, a fixed interval not evenly spaced, a cap not applied.
func TestBackoffSchedulesChecksCatchAWrongRun(t *testing.T) {
	const (
		exactly   = "the worker waited exactly the schedule"
		dead      = "every message dead-lettered when its attempts ran out"
		table     = "the budget table is the course's loop"
		immediate = "immediate retry never uses up a time budget"
		fixed     = "a fixed interval fills the budget with evenly spaced attempts"
		bounds    = "the cap bounds every wait"
		lowers    = "the cap lowers the total wait once it bites"
	)
	ms := time.Millisecond
	tests := []struct {
		name       string
		tamper     func(runs []measured, msgs []outbox.Message)
		wantFailed []string
	}{
		{"nothing wrong", func([]measured, []outbox.Message) {}, nil},
		{"the cap ignored", func(runs []measured, _ []outbox.Message) { runs[3].waits = slices.Clone(runs[2].waits) },
			[]string{exactly, bounds, lowers}},
		{"immediate retry waits a millisecond", func(runs []measured, _ []outbox.Message) { runs[0].waits[3] = ms },
			[]string{exactly, immediate}},
		{"one fixed wait a millisecond long", func(runs []measured, _ []outbox.Message) { runs[1].waits[0] += ms },
			[]string{exactly, fixed}},
		{"a message left Pending", func(_ []measured, msgs []outbox.Message) { msgs[2].Status = outbox.Pending },
			[]string{dead}},
		{"one call fewer than attempts", func(runs []measured, _ []outbox.Message) { runs[1].claims = runs[1].claims[1:] },
			[]string{dead}},
		{"Fit one attempt over the budget", func(runs []measured, _ []outbox.Message) { runs[3].fit++ },
			[]string{table}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			o := scenariotest.Bind(t, backoffSchedules).(*schedulesOptions)
			store, err := outbox.Open(ctx, dialect.File(filepath.Join(t.TempDir(), "outbox.db")))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			runs, err := o.measure(ctx, store)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := store.Messages(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tt.tamper(runs, msgs)
			r := report.New(backoffSchedules, report.Experiment)
			o.checks(r, runs, msgs)
			for _, name := range []string{exactly, dead, table, immediate, fixed, bounds, lowers} {
				c := scenariotest.CheckNamed(t, r, name)
				if want := slices.Contains(tt.wantFailed, name); c.Passed == want {
					t.Errorf("%q passed = %v, want %v: %s", name, c.Passed, !want, c.Detail)
				}
			}
		})
	}
}

// The seed's loop, written apart from the engine, prints node's budget table.
func TestSeedFitReproducesTheSeedsBudgetTable(t *testing.T) {
	o := scenariotest.Bind(t, backoffSchedules).(*schedulesOptions)
	want := []string{"1000 0", "150 300000", "9 255500", "14 271500"}
	for i, s := range o.schedules() {
		n, elapsed := seedFit(s.seed, o.Budget.Milliseconds(), fitLimit)
		if got := fmt.Sprint(n, " ", elapsed); got != want[i] {
			t.Errorf("%s: seedFit = %s, want %s", s.name, got, want[i])
		}
	}
}

// A budget shorter than the fixed interval leaves "fills the budget"
// unexercised; one that holds more than the course's 1000 fixed waits breaks
// it, and the report says why; so does a cap that never bit.
func TestBackoffSchedulesSaysWhyItsChecksFailed(t *testing.T) {
	r := scenariotest.Run(t, backoffSchedules, "--budget", "1s")
	if c := scenariotest.CheckNamed(t, r, checkFixedFills); c.Outcome != report.OutcomeNotExercised {
		t.Fatalf("the fixed interval was judged in a budget shorter than itself: %s %s", c.Outcome, c.Detail)
	} else if want := "--fixed 2 s is longer than the --budget of 1 s: not one fixed wait fits in it"; !strings.Contains(c.Detail, want) {
		t.Errorf("detail %q lacks %q", c.Detail, want)
	}

	r = scenariotest.Run(t, backoffSchedules, "--budget", "24h")
	if c := scenariotest.CheckNamed(t, r, checkFixedFills); c.Outcome != report.OutcomeBroken {
		t.Fatalf("1000 fixed waits of 2 s filled a 24 h budget: %s %s", c.Outcome, c.Detail)
	}
	flat := strings.Join(strings.Fields(r.Body()), " ")
	if want := "WHY the --budget of 1440 min holds more fixed waits of 2 s than the course's loop takes (1000,"; !strings.Contains(flat, want) {
		t.Errorf("report lacks %q:\n%s", want, r.Body())
	}

	for _, args := range [][]string{{"--cap", "2m"}, {"--cap", "64s"}, {"--attempts", "6"}} {
		r = scenariotest.Run(t, backoffSchedules, args...)
		for _, name := range []string{checkCapBounds, checkCapLowers} {
			if c := scenariotest.CheckNamed(t, r, name); c.Outcome != report.OutcomeNotExercised {
				t.Errorf("%v: %q is %s where the cap never bit: %s", args, name, c.Outcome, c.Detail)
			}
		}
	}
	r = scenariotest.Run(t, backoffSchedules, "--cap", "63999ms")
	if c := scenariotest.CheckNamed(t, r, checkCapLowers); c.Outcome != report.OutcomeHeld {
		t.Errorf("a cap 1 ms under the longest wait did not lower the total: %s %s", c.Outcome, c.Detail)
	}
}

// "Fills the budget" holds only when the course's loop stopped because the
// next wait would not fit: one wait short of the budget, or stopped at the
// loop's limit of 1000, it breaks; with no wait in the budget it is not
// exercised.
func TestFixedFillsOnlyAFullBudget(t *testing.T) {
	o := scenariotest.Bind(t, backoffSchedules).(*schedulesOptions)
	fixed := measured{waits: backoff.Backoff{Base: o.Fixed, Cap: o.Fixed}.Schedule(o.Attempts)}
	for _, tt := range []struct {
		fit   int
		spent int64
		want  report.Outcome
	}{
		{150, 300000, report.OutcomeHeld},
		{149, 298000, report.OutcomeBroken}, // one more 2 s wait would have fit
		{fitLimit, 2000000, report.OutcomeBroken},
		{0, 0, report.OutcomeNotExercised},
	} {
		r := report.New(backoffSchedules, report.Experiment)
		o.fixedFillsCheck(r, fixed, tt.fit, tt.spent)
		if c := scenariotest.CheckNamed(t, r, checkFixedFills); c.Outcome != tt.want {
			t.Errorf("fit %d in %d ms: %s, want %s: %s", tt.fit, tt.spent, c.Outcome, tt.want, c.Detail)
		}
	}
}
