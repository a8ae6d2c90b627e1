package retry

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
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
		{[]string{"--max-restarts", "51"}, "--max-restarts must be between 1 and 50, got 51"},
	})
}

// seedPoisonCounter is the seed's poison-counter.mjs, line for line: the
// oracle the real child-process runs are held to, for any flags.
func seedPoisonCounter(messages int, lethal []int, threshold, maxRestarts int, atDelivery bool) string {
	type msg struct {
		id, attempt int
		status      string
	}
	queue := make([]*msg, messages)
	for i := range queue {
		queue[i] = &msg{id: i + 1, status: "pending"}
	}
	dead, delivered, deaths, restarts := 0, 0, 0, 0
	for b := 1; b <= maxRestarts; b++ {
		restarts = b
		var pending []*msg
		for _, m := range queue {
			if m.status == "pending" {
				pending = append(pending, m)
			}
		}
		for _, m := range pending {
			delivered++
			if atDelivery {
				m.attempt++
				if m.attempt >= threshold {
					m.status = "dead"
					dead++
					continue
				}
			}
			if slices.Contains(lethal, m.id) {
				deaths++
				break
			}
			m.status = "processed"
		}
		if !slices.ContainsFunc(queue, func(m *msg) bool { return m.status == "pending" }) {
			break
		}
	}
	processed, remaining := 0, 0
	for _, m := range queue {
		switch m.status {
		case "processed":
			processed++
		case "pending":
			remaining++
		}
	}
	return fmt.Sprint(restarts, delivered, deaths, processed, dead, remaining)
}

func TestSeedOracleReproducesTheSeedsTable(t *testing.T) {
	if got := seedPoisonCounter(5, []int{3}, 3, 12, false); got != "12 14 12 2 0 3" {
		t.Errorf("on catch %s, want the seed's 12 14 12 2 0 3", got)
	}
	if got := seedPoisonCounter(5, []int{3}, 3, 12, true); got != "3 7 2 4 1 0" {
		t.Errorf("at delivery %s, want the seed's 3 7 2 4 1 0", got)
	}
}

// Every case spawns real child processes that die on the lethal message; the
// figures read back from their databases must be the seed's algorithm's.
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
				got := fmt.Sprint(m["restarts_"+pos.key], m["delivered_"+pos.key], m["process_deaths_"+pos.key],
					m["processed_"+pos.key], m["dead_letters_"+pos.key], m["remaining_"+pos.key])
				want := seedPoisonCounter(tt.messages, tt.lethal, tt.threshold, tt.restarts, pos.atDelivery)
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
	store, err := outbox.Open(ctx, filepath.Join(t.TempDir(), "outbox.db"))
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
