package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"outboxlab/core/changelog"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// stoppedAt runs name with --stop-after k and returns its recorder, the
// run ended by ErrStopped with its databases as they stood at event k.
func stoppedAt(t *testing.T, name string, k int) (*changelog.Recorder, scenarios.Env) {
	t.Helper()
	env := scenarios.NewEnv(t.TempDir())
	env.Recorder = changelog.New(k)
	o := scenariotest.Bind(t, name)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Run(context.Background(), env); !errors.Is(err, changelog.ErrStopped) {
		t.Fatalf("--stop-after %d: run ended with %v, want stopped", k, err)
	}
	t.Cleanup(func() { env.Recorder.Close() })
	return env.Recorder, env
}

// tablesText is tables as one comparable text.
func tablesText(t *testing.T, tables []changelog.Table) string {
	t.Helper()
	return logJSON(t, changelog.Log{Designs: []changelog.Design{{Tables: tables}}})
}

// The replay of a run whose events happen partly in child processes (Day
// 13's first life, Day 15's worker-c) is the database's: at the end each
// design's rows are what its database holds, read anew; and a run stopped
// after event k (the child killed there when k is one of its events) leaves
// in the database the rows the whole run's log shows after event k. The
// first step shows the rows as seeded: Day 13's empty tables, Day 15's six
// Pending messages.
func TestReplayFollowsChildProcesses(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		seeded   map[string]int // rows per table as seeded, own design
		children []int          // events recorded by a child process (--stop-after there)
	}{
		{"session-13-durable-reconciliation", map[string]int{"payments": 0, "rechecks": 0}, []int{1, 5, 12}},
		{"session-13-pending-lost-on-restart", map[string]int{"payments": 0}, []int{3, 8}},
		{"session-15-outbox-leasing", map[string]int{"outboxmessages": 6, "payments": 6, "paymentnotifications": 0}, []int{1}},
		{"session-15-double-processing-without-lease", map[string]int{"outboxmessages": 6, "payments": 6}, []int{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := scenarios.NewEnv(t.TempDir())
			env.Recorder = changelog.New(0)
			defer env.Recorder.Close()
			scenariotest.RunIn(t, env, c.name)
			log := env.Recorder.Log()
			own := log.Designs[0]
			for table, want := range c.seeded {
				if got := rowsOf(log.State(0)[own.Name], table); got != want {
					t.Errorf("seeded %s: %d rows, want %d", table, got, want)
				}
			}
			for _, s := range log.Steps {
				if strings.HasPrefix(s.Text, "(rows the child process changed") {
					t.Errorf("event %d: the child changed rows it never announced: %+v", s.N, s.Changes)
				}
			}
			last := len(log.Steps)
			for design, tables := range log.State(last) {
				db, _ := env.Recorder.Database(design)
				truth, err := changelog.ReadTables(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := tablesText(t, tables), tablesText(t, truth); got != want {
					t.Errorf("%s after the last event (%d): the log's rows differ from the database's:\n%s", design, last, firstDiff(want, got))
				}
			}
			for _, k := range c.children {
				s := log.Steps[k-1]
				if s.Design != own.Name || len(s.Changes) == 0 {
					t.Fatalf("event %d (%s) is not a child's event of %s that changed rows: %+v", k, s.Design, own.Name, s)
				}
				rec, _ := stoppedAt(t, c.name, k)
				db, _ := rec.Database(own.Name)
				truth, err := changelog.ReadTables(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := tablesText(t, log.State(k)[own.Name]), tablesText(t, truth); got != want {
					t.Errorf("stopped after event %d: the log's rows then differ from the database's:\n%s", k, firstDiff(want, got))
				}
				if n := len(rec.Log().Steps); n != k {
					t.Errorf("stopped after event %d: %d events recorded", k, n)
				}
			}
		})
	}
}

func rowsOf(tables []changelog.Table, name string) int {
	for _, t := range tables {
		if t.Name == name {
			return len(t.Rows)
		}
	}
	panic(fmt.Sprintf("no table %s", name))
}
