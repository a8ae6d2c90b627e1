package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"outboxlab/core/changelog"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// recorded runs the scenario name in env with a recorder and returns its
// change log.
func recorded(t *testing.T, env scenarios.Env, name string, args ...string) changelog.Log {
	t.Helper()
	env.Recorder = changelog.New(0)
	defer env.Recorder.Close()
	scenariotest.RunIn(t, env, name, args...)
	return env.Recorder.Log()
}

func logJSON(t *testing.T, l changelog.Log) string {
	t.Helper()
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The Day 16 AFTER's change log holds what the database says each event
// did: the poison message's AttemptCount 1 → 2 → 3, its Status ending
// DeadLettered, and the seeded rows untouched before the first event.
func TestChangeLogDay16ReadsTheRows(t *testing.T) {
	l := recorded(t, scenarios.NewEnv(t.TempDir()), session16AfterName)
	if got := []string{l.Designs[0].Name, l.Designs[1].Name}; got[0] != "AFTER" || got[1] != "BEFORE" {
		t.Fatalf("designs = %v, want the own design (AFTER) first, then BEFORE", got)
	}
	var attempts, status []string
	for _, s := range l.Steps {
		if s.Design != "AFTER" {
			continue
		}
		for _, c := range s.Changes {
			if c.Table != "outboxmessages" || c.Key != "3" {
				continue
			}
			for _, cell := range c.Cells {
				switch cell.Column {
				case "attemptcount":
					attempts = append(attempts, *cell.Old+"→"+*cell.New)
				case "status":
					status = append(status, *cell.Old+"→"+*cell.New)
				}
			}
		}
	}
	if got, want := strings.Join(attempts, " "), "0→1 1→2 2→3"; got != want {
		t.Errorf("PAY-003's AttemptCount changes = %q, want %q", got, want)
	}
	if len(status) == 0 || !strings.HasSuffix(status[len(status)-1], "→DeadLettered") {
		t.Errorf("PAY-003's Status changes = %v, want the last to be → DeadLettered", status)
	}
	for _, tb := range l.Designs[0].Tables {
		if tb.Name == "outboxmessages" && len(tb.Rows) != 6 {
			t.Errorf("seeded outbox has %d rows, want 6", len(tb.Rows))
		}
	}
}

const session16AfterName = "session-16-retry-with-dead-letter"

// One run gives one change log: the same twice on SQLite, and the same on
// PostgreSQL as on SQLite, the events a child process recorded included.
func TestChangeLogSameEveryRunAndOnPostgres(t *testing.T) {
	for _, name := range []string{session16AfterName, "ordered-remember-poisoned-ids", "circuit-breaker",
		"backoff-on-queue-timeline", "session-17-audited-redrive", "governance-threshold",
		"session-13-pending-lost-on-restart", "session-15-outbox-leasing", // Days 13 and 15: events in child processes
		"session-18-graceful-shutdown", "session-18-woken-on-new-work"} { // Day 18: a release, a NOTIFY wake
		t.Run(name, func(t *testing.T) {
			first := logJSON(t, recorded(t, scenarios.NewEnv(t.TempDir()), name))
			if again := logJSON(t, recorded(t, scenarios.NewEnv(t.TempDir()), name)); again != first {
				t.Fatalf("a second SQLite run recorded another change log")
			}
			ctx := context.Background()
			env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), pgtest.ServerDatabase(t), name)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close(ctx, false)
			pg := logJSON(t, recorded(t, env, name))
			if pg, first := comparable(pg), comparable(first); pg != first {
				t.Errorf("the PostgreSQL change log differs from SQLite's:\n%s", firstDiff(first, pg))
			}
		})
	}
}

// comparable is a change log's JSON without the timeline lines that
// describe the database itself (marked report.DatabaseMarker), as a report's
// comparable body leaves them out.
func comparable(logJSON string) string {
	return databaseLine.ReplaceAllString(logJSON, "")
}

var databaseLine = regexp.MustCompile(`(\\n)?(?:[^"\\]|\\[^n])*` + regexp.QuoteMeta(report.DatabaseMarker))

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ": SQLite " + al[i] + "\n        PostgreSQL " + bl[i]
		}
	}
	return "one is longer"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
