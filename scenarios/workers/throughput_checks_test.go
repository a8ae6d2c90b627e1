package workers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// checkResults runs judge on a fresh report and returns its checks by name.
func checkResults(judge func(r *report.Report)) map[string]report.Check {
	r := report.New(throughputName, report.Experiment)
	judge(r)
	out := map[string]report.Check{}
	for _, c := range r.Result().Checks {
		out[c.Name] = c
	}
	return out
}

// wantOnlyFailing fails the test unless exactly the checks named in failing
// failed; an empty failing means every check must pass.
func wantOnlyFailing(t *testing.T, checks map[string]report.Check, failing ...string) {
	t.Helper()
	for name, c := range checks {
		if want := !slices.Contains(failing, name); c.Passed != want {
			t.Errorf("check %q passed = %t, want %t: %s", name, c.Passed, want, c.Detail)
		}
	}
	for _, name := range failing {
		if _, ok := checks[name]; !ok {
			t.Errorf("no check named %q", name)
		}
	}
}

// tamper runs SQL on a finished run's database, as a broken engine would
// have left it, and returns the ledger read back from it.
func tamper(t *testing.T, path, sql string) ledgerMetrics {
	t.Helper()
	ctx := context.Background()
	store, err := outbox.OpenExisting(ctx, dialect.File(path))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.DB().ExecContext(ctx, sql); err != nil {
		t.Fatalf("tamper: %v", err)
	}
	l, err := readLedger(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

const (
	checkProcessed    = "every message Processed, none lost"
	checkExactlyOnce  = "exactly once in the delivery ledger"
	checkOneClaim     = "one claim per message (AttemptCount 1)"
	checkCalls        = "handler called once per message, every call settled"
	checkTransactions = "write transactions: a settlement per claim, ⌈n/claim⌉ a round with 1 worker, an empty claim each"
)

// The drain checks read the drained file (and, for calls and claims, what
// the workers reported): changing the file, or the workers' report, the way
// a broken engine would fails the check that guards it.
func TestDrainChecksCanFail(t *testing.T) {
	o := parse(t, "--messages", "40", "--workers", "2", "--batch", "4", "--repeats", "1")
	cfg := drainConfig{Messages: 40, Workers: 2, Batch: 4, Lease: time.Minute}
	tests := []struct {
		name    string
		sql     string            // run on the drained file, then the ledger is read again
		edit    func(d *drainRun) // applied to what the workers reported
		failing []string
	}{
		{name: "untouched"},
		{name: "a message left Pending", sql: `UPDATE OutboxMessages SET Status = 'Pending' WHERE Id = 3`,
			failing: []string{checkProcessed}},
		{name: "a message the backlog did not hold",
			sql: `INSERT INTO OutboxMessages (MessageKey, Type, Status, AttemptCount, CreatedAtUtc)
				VALUES ('EXTRA', 'DrainMessage', 'Processed', 0, '2026-01-16T09:00:00.000Z')`,
			failing: []string{checkProcessed}},
		{name: "a message delivered twice in another transaction",
			sql: `INSERT INTO Settlements (Worker) VALUES ('worker-1');
				INSERT INTO Deliveries (MessageId, Worker, Attempt, Settlement) SELECT MessageId, Worker, Attempt, last_insert_rowid() FROM Deliveries WHERE Id = 1`,
			failing: []string{checkExactlyOnce, checkCalls, checkTransactions}},
		{name: "a message claimed twice", sql: `UPDATE OutboxMessages SET AttemptCount = 2 WHERE Id = 5`,
			failing: []string{checkOneClaim}},
		{name: "a delivery recorded under another attempt", sql: `UPDATE Deliveries SET Attempt = 2 WHERE Id = 5`,
			failing: []string{checkOneClaim}},
		{name: "a call whose settlement left no row", sql: `DELETE FROM Deliveries WHERE Id = (SELECT MAX(Id) FROM Deliveries)`,
			failing: []string{checkProcessed, checkExactlyOnce, checkCalls}},
		{name: "a handler call more than the messages", edit: func(d *drainRun) { d.tallies[0].Calls++ },
			failing: []string{checkCalls}},
		{name: "two claims settled in one transaction",
			sql: `UPDATE Deliveries SET Settlement = (SELECT MIN(Settlement) FROM Deliveries)
				WHERE Settlement = (SELECT MAX(Settlement) FROM Deliveries)`,
			failing: []string{checkTransactions}},
		{name: "one claim settled in two transactions",
			sql: `INSERT INTO Settlements (Worker) VALUES ('worker-1');
				UPDATE Deliveries SET Settlement = last_insert_rowid() WHERE Id = (SELECT MAX(Id) FROM Deliveries)`,
			failing: []string{checkTransactions}},
		{name: "a claim the ledger has no settlement for", edit: func(d *drainRun) { d.tallies[1].Claims++ },
			failing: []string{checkTransactions}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, path := drainFile(t, cfg)
			if tt.sql != "" {
				run.ledger = tamper(t, path, tt.sql)
			}
			if tt.edit != nil {
				tt.edit(run)
			}
			checks := checkResults(func(r *report.Report) { o.drainChecks(r, []*drainRun{run}) })
			wantOnlyFailing(t, checks, tt.failing...)
		})
	}
}

// A failed drain check names the configuration that broke and what its
// file showed, beside what the others showed.
func TestDrainCheckDetailShowsTheFile(t *testing.T) {
	o := parse(t, "--messages", "30", "--workers", "1,2", "--batch", "5", "--repeats", "1")
	var drains []*drainRun
	for _, w := range []int{1, 2} {
		run, path := drainFile(t, drainConfig{Messages: 30, Workers: w, Batch: 5, Lease: time.Minute})
		if w == 2 {
			run.ledger = tamper(t, path, `UPDATE OutboxMessages SET Status = 'Pending' WHERE Id = 9`)
		}
		drains = append(drains, run)
	}
	c := checkResults(func(r *report.Report) { o.drainChecks(r, drains) })[checkProcessed]
	want := "30/30 Processed, 0 live, 0 undelivered in 1 of the 2 configurations; " +
		"2 workers, claim 5: 29/30 Processed, 1 live, 0 undelivered"
	if c.Passed || c.Detail != want {
		t.Errorf("check passed = %t, detail %q; want a failure reading %q", c.Passed, c.Detail, want)
	}
}

const (
	checkDepth         = "queue depth = produced − capacity, every tick"
	checkAgeGrows      = "oldest-message age grows while overloaded"
	checkBacklogDrains = "backlog drains once production stops"
	checkMaxAge        = "oldest-message age within --max-age"
	checkOverloadDB    = "every produced message processed exactly once (overload)"
)

// The overload checks compare what the file showed each tick with the
// arithmetic, and the file's rows at the end with what was produced.
func TestOverloadChecksCanFail(t *testing.T) {
	args := []string{"--produce-rate", "300", "--produce-for", "1s", "--consumers", "1"}
	o := parse(t, args...)
	tests := []struct {
		name    string
		sql     string // run on the overload's file, then the ledger is read again
		edit    func(over *overloadRun)
		failing []string
	}{
		{name: "untouched"},
		{name: "a tick deeper than the arithmetic", edit: func(over *overloadRun) { over.samples[3].Depth++ },
			failing: []string{checkDepth}},
		{name: "a tick whose ledger misses a message", edit: func(over *overloadRun) { over.samples[3].Processed-- },
			failing: []string{checkDepth}},
		{name: "a tick the arithmetic does not have", edit: func(over *overloadRun) {
			over.samples = append(over.samples, over.samples[len(over.samples)-1])
		}, failing: []string{checkDepth}},
		{name: "the oldest age falls", edit: func(over *overloadRun) {
			over.samples[4].OldestAge = over.samples[5].OldestAge + time.Millisecond
		}, failing: []string{checkAgeGrows}},
		{name: "nothing waiting when production stops", edit: func(over *overloadRun) {
			over.samples[over.stopTick].Depth, over.samples[over.stopTick].OldestAge = 0, 0
		}, failing: []string{checkDepth, checkAgeGrows}},
		{name: "the run ends before the queue drains", edit: func(over *overloadRun) {
			over.samples = over.samples[:over.stopTick+2]
		}, failing: []string{checkDepth, checkBacklogDrains}},
		{name: "drained faster than the consumers can", edit: func(over *overloadRun) {
			last := &over.samples[len(over.samples)-1]
			last.At = over.samples[over.stopTick].At.Add(o.Tick)
		}, failing: []string{checkBacklogDrains}},
		{name: "a message processed twice",
			sql:     `INSERT INTO Deliveries (MessageId, Worker, Attempt, Settlement) SELECT MessageId, Worker, Attempt, Settlement FROM Deliveries WHERE Id = 1`,
			failing: []string{checkOverloadDB}},
		{name: "a message the producer did not write",
			sql: `INSERT INTO OutboxMessages (MessageKey, Type, Status, AttemptCount, CreatedAtUtc, ProcessedAtUtc)
				VALUES ('EXTRA', 'OverloadMessage', 'Processed', 1, '2026-01-16T09:00:00.000Z', '2026-01-16T09:00:00.100Z');
				INSERT INTO Deliveries (MessageId, Worker, Attempt, Settlement) VALUES (last_insert_rowid(), 'consumer-1', 1, 1)`,
			failing: []string{checkOverloadDB}},
		{name: "a message left Processing", sql: `UPDATE OutboxMessages SET Status = 'Processing' WHERE Id = 7`,
			failing: []string{checkOverloadDB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, over, path := runOverload(t, args...)
			if tt.sql != "" {
				over.ledger = tamper(t, path, tt.sql)
			}
			if tt.edit != nil {
				tt.edit(over)
			}
			wantOnlyFailing(t, checkResults(func(r *report.Report) { o.overloadChecks(r, over) }), tt.failing...)
		})
	}
}

// Flags alone decide the overload's outcome, with a report that says why:
// production at or below capacity (the scenario's NotExercisedWith) never
// builds a queue, so its growth and drain are not exercised; a tight
// --max-age is broken by the burst.
func TestOverloadFlagsThatFail(t *testing.T) {
	idle := func(rate int) string {
		return fmt.Sprintf("%d messages/s produced is not above the consumers' 400/s, so no queue could build up; "+
			"a --produce-rate above 400 overloads them", rate)
	}
	tests := []struct {
		args       []string
		failing    []string
		outcome    report.Outcome // of failing[0]
		wantDetail string         // of failing[0]
	}{
		{[]string{"--produce-rate", "300"}, []string{checkAgeGrows, checkBacklogDrains}, report.OutcomeNotExercised, idle(300)},
		{[]string{"--produce-rate", "400"}, []string{checkAgeGrows, checkBacklogDrains}, report.OutcomeNotExercised, idle(400)},
		{[]string{"--produce-for", "2s", "--max-age", "400ms"}, []string{checkMaxAge}, report.OutcomeBroken, "peak 480 ms, limit 400 ms"},
	}
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			o, over, _ := runOverload(t, tt.args...)
			checks := checkResults(func(r *report.Report) { o.overloadChecks(r, over) })
			wantOnlyFailing(t, checks, tt.failing...)
			if got := checks[tt.failing[0]]; got.Detail != tt.wantDetail || got.Outcome != tt.outcome {
				t.Errorf("%s: %s, detail %q; want %s, %q", tt.failing[0], got.Outcome, got.Detail, tt.outcome, tt.wantDetail)
			}
			body := report.New(throughputName, report.Experiment)
			o.writeOverload(body, over, false)
			if o.ProduceRate <= 400 && !strings.Contains(body.Body(), "Overload  none: ") {
				t.Errorf("the overload section does not say there was no overload:\n%s", body.Body())
			}
		})
	}
}

// The roles: the drain checks, the age limit and the overload's ledger are
// invariants; the depth, the growth and the drain are what the run shows.
func TestCheckRoles(t *testing.T) {
	o, over, _ := runOverload(t)
	run, _ := drainFile(t, drainConfig{Messages: 20, Workers: 2, Batch: 4, Lease: time.Minute})
	p := parse(t, "--messages", "20", "--workers", "2", "--batch", "4", "--repeats", "1")
	checks := checkResults(func(r *report.Report) { p.drainChecks(r, []*drainRun{run}); o.overloadChecks(r, over) })
	for name, want := range map[string]report.Role{
		checkProcessed: report.RoleInvariant, checkExactlyOnce: report.RoleInvariant, checkOneClaim: report.RoleInvariant,
		checkCalls: report.RoleInvariant, checkTransactions: report.RoleInvariant, checkMaxAge: report.RoleInvariant,
		checkOverloadDB: report.RoleInvariant,
		checkDepth:      report.RoleDemonstrates, checkAgeGrows: report.RoleDemonstrates, checkBacklogDrains: report.RoleDemonstrates,
	} {
		if c, ok := checks[name]; !ok || c.Role != want || c.Outcome != report.OutcomeHeld {
			t.Errorf("%s: role %q, outcome %q; want %q, held", name, c.Role, c.Outcome, want)
		}
	}
}
