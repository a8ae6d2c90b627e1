package wassal

import (
	"strings"
	"testing"

	"outboxlab/scenarios/scenariotest"
)

func TestSession13Validate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string // empty: valid
	}{
		{nil, ""},
		{[]string{"--timeout-key", "none", "--declined-key", "none", "--crash-after", "none"}, ""},
		{[]string{"--payments", "5"}, "--payments must be between 6 and 500, got 5"},
		{[]string{"--timeout-key", "PAY-007"}, `--timeout-key "PAY-007" is not a seeded payment (PAY-001..PAY-006)`},
		{[]string{"--timeout-key", "PAY-003,PAY-003"}, `--timeout-key "PAY-003" is listed twice`},
		{[]string{"--crash-after", "PAY-9"}, `--crash-after "PAY-9" is not a seeded payment`},
		{[]string{"--declined-key", "PAY-000"}, `--declined-key "PAY-000" is not a seeded payment`},
		{[]string{"--recheck-after", "0s"}, "--recheck-after must be between 1ms and 24h, got 0s"},
		{[]string{"--downtime", "-1s"}, "--downtime must be between 0s and 24h, got -1s"},
		{[]string{"--observe", "5s"}, ""}, // the re-checks fall due after the watch: the report says so
		{[]string{"--observe", "25h"}, "--observe must be between 1ms and 24h, got 25h"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := scenariotest.Bind(t, session13After, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// driveSession13 runs one design of Day 13 (its first life in a real child
// process) and returns the run and its metrics.
func driveSession13(t *testing.T, durable bool, args ...string) (*session13Run, session13Metrics) {
	t.Helper()
	o, run := driveDesign(t, (*session13Options).drive, session13After, durable, args...)
	return run, o.metrics(run)
}

func TestSession13MetricsFollowTheFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		durable          bool
		args             []string
		wantPendingCrash string // PendingConfirmation payments the crash left on disk
		wantRows         int    // re-check rows on disk after the crash
		wantStill        string // still PendingConfirmation at the end
		wantChecks       int    // status checks after the restart for the payments pending at the crash
		wantPaid         int
		wantFailed       int
		wantChargedLost  string // charged at the provider, not Paid on our books
	}{
		{"memory, defaults", false, nil, "PAY-003, PAY-005", 0, "PAY-003, PAY-005", 0, 4, 0, "PAY-003"},
		{"durable, defaults", true, nil, "PAY-003, PAY-005", 2, "none", 2, 5, 1, "none"},
		// Life 2 handles PAY-005 and PAY-006 and remembers PAY-005 itself: only life 1's memory is lost.
		{"memory, crash after PAY-004", false, []string{"--crash-after", "PAY-004"}, "PAY-003", 0, "PAY-003", 0, 4, 1, "PAY-003"},
		{"durable, reconciler off", true, []string{"--reconciler=false"}, "PAY-003, PAY-005", 2, "PAY-003, PAY-005", 0, 4, 0, "PAY-003"},
		{"durable, three lost answers", true, []string{"--timeout-key", "PAY-001,PAY-002,PAY-006", "--declined-key", "none"},
			"PAY-001, PAY-002, PAY-006", 3, "none", 3, 6, 0, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run, f := driveSession13(t, tt.durable, tt.args...)
			if got := keysText(run.pendingAtCrash); got != tt.wantPendingCrash || len(run.rowsAtCrash) != tt.wantRows {
				t.Errorf("after the crash: pending %s, %d re-check rows; want %s, %d", got, len(run.rowsAtCrash), tt.wantPendingCrash, tt.wantRows)
			}
			if got := keysText(f.stillPending); got != tt.wantStill {
				t.Errorf("still pending %s, want %s", got, tt.wantStill)
			}
			if f.checksAfterRestart != tt.wantChecks {
				t.Errorf("status checks after the restart %d, want %d", f.checksAfterRestart, tt.wantChecks)
			}
			if f.paid != tt.wantPaid || f.failed != tt.wantFailed {
				t.Errorf("resolved %d Paid / %d Failed, want %d / %d", f.paid, f.failed, tt.wantPaid, tt.wantFailed)
			}
			if got := keysText(f.chargedNotPaid); got != tt.wantChargedLost {
				t.Errorf("charged but not Paid: %s, want %s", got, tt.wantChargedLost)
			}
			if f.charges != 6 || f.maxCharge != 1 {
				t.Errorf("%d charges, max %d per payment; want 6, 1: reconciliation never charges", f.charges, f.maxCharge)
			}
		})
	}
}

func TestSession13ChildReallyDiesAndTheReconcilerWaitsForTheDueTime(t *testing.T) {
	t.Parallel()
	run, _ := driveSession13(t, true)
	if !run.crashed || !strings.Contains(strings.Join(run.lines, "\n"),
		"09:00:00.500Z  —        CRASH: life 1 is killed (SIGKILL) right after PAY-006") {
		t.Fatalf("no crash line in the timeline:\n%s", strings.Join(run.lines, "\n"))
	}
	var checks []string
	for _, c := range run.ledger.Calls {
		if c.Op == "status-check" {
			checks = append(checks, c.Key+"@"+c.At.Format("15:04:05.000"))
		}
	}
	// Each re-check is due 5 s after its lost answer; the reconciler starts 3 s after the crash.
	if got := strings.Join(checks, " "); got != "PAY-003@09:00:05.201 PAY-005@09:00:05.401" {
		t.Errorf("status checks %s, want PAY-003@09:00:05.201 PAY-005@09:00:05.401", got)
	}
}

func TestSession13ChecksAndVerdicts(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session13Before, "--crash-after", "none")
	for _, name := range []string{"pending work lost with the process", "nobody asked the provider again"} {
		wantNotExercised(t, rep, name, "no crash (--crash-after none): the service kept its memory")
	}
	wantChecks(t, rep, map[string]string{"never charged twice": "PASS 6 charges for 6 payments, max 1 per payment"})
	// A crash with nothing pending loses nothing: not exercised either.
	rep = scenariotest.Run(t, session13Before, "--crash-after", "PAY-002")
	wantNotExercised(t, rep, "pending work lost with the process", "killed after PAY-002 with no payment pending")
	rep = scenariotest.Run(t, session13After, "--crash-after", "none")
	wantNotExercised(t, rep, "pending work survived the restart", "no crash (--crash-after none)")
	rep = scenariotest.Run(t, session13After)
	wantChecks(t, rep, map[string]string{
		"pending work survived the restart": "PASS 2 pending payments, 2 re-check rows on disk after the crash",
		"every payment ends Paid or Failed": "PASS 0 PendingConfirmation; 5 Paid, 1 Failed",
		"never charged twice":               "PASS 6 charges for 6 payments, max 1 per payment",
	})
	wantLines(t, rep, "│ Status checks after the restart        │ 0                              │ 2                    │",
		"VERDICT: [PASS ✅] DURABLE RECONCILIATION — THE PENDING WORK SURVIVES A RESTART",
		"Next      writing both in one transaction, so that no crash can fall between them: Day 14")
}

// Day 13 comes before the outbox: its store is Payments, and the durable
// design's own Rechecks table; OutboxMessages is Day 14's.
func TestSession13StoreHasNoOutbox(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		durable bool
		want    string
	}{{false, "LabInfo Payments"}, {true, "LabInfo Payments Rechecks"}} {
		run, _ := driveSession13(t, tt.durable)
		var names []string
		for _, table := range run.tables {
			names = append(names, table.Name)
		}
		if got := strings.Join(names, " "); got != tt.want {
			t.Errorf("durable=%v: tables %s, want %s", tt.durable, got, tt.want)
		}
	}
}
