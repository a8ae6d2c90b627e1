package wassal

import (
	"strings"
	"testing"

	"outboxlab/scenarios/scenariotest"
)

func TestSession14Validate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"--crash-at", "none"}, ""},
		{[]string{"--crash-at", "PAY-005,PAY-001"}, ""}, // sorted into request order
		{[]string{"--payments", "501"}, "--payments must be between 5 and 500, got 501"},
		{[]string{"--crash-at", "PAY-002,PAY-002"}, `--crash-at "PAY-002" is listed twice`},
		{[]string{"--crash-at", "PAY-010"}, `--crash-at "PAY-010" is not a seeded payment (PAY-001..PAY-006)`},
		{[]string{"--declined-key", "PAY-7"}, `--declined-key "PAY-7" is not a seeded payment`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := scenariotest.Bind(t, session14Before, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	opts := scenariotest.Bind(t, session14Before, "--crash-at", "PAY-005,PAY-001")
	opts.Validate()
	if got := keysText(opts.(*session14Options).CrashAt); got != "PAY-001, PAY-005" {
		t.Errorf("crash keys %s, want them in request order PAY-001, PAY-005", got)
	}
}

func driveSession14(t *testing.T, atomic bool, args ...string) (*session14Run, session14Metrics) {
	t.Helper()
	o, run := driveDesign(t, (*session14Options).drive, session14After, atomic, args...)
	return run, o.metrics(run)
}

func TestSession14EachCrashLeavesWhatItsDesignAllows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                       string
		atomic                     bool
		args                       []string
		wantPayments, wantMessages int
		wantLost, wantGhosts       string
		wantPending, wantGhostAsk  string
		wantOneEach                int
	}{
		{"dual write, defaults", false, nil, 5, 5, "PAY-002", "PAY-004", "PAY-002", "PAY-004", 4},
		{"one transaction, defaults", true, nil, 4, 4, "none", "none", "none", "none", 4},
		{"dual write, first and last", false, []string{"--crash-at", "PAY-001,PAY-006"}, 5, 5, "PAY-001", "PAY-006", "PAY-001", "PAY-006", 4},
		{"dual write, one crash", false, []string{"--crash-at", "PAY-003"}, 6, 5, "PAY-003", "none", "PAY-003", "none", 5},
		{"one transaction, three crashes", true, []string{"--crash-at", "PAY-001,PAY-003,PAY-005"}, 3, 3, "none", "none", "none", "none", 3},
		{"no crash", false, []string{"--crash-at", "none"}, 6, 6, "none", "none", "none", "none", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, f := driveSession14(t, tt.atomic, tt.args...)
			if f.paymentRows != tt.wantPayments || f.messages != tt.wantMessages {
				t.Errorf("%d payment rows, %d outbox rows; want %d, %d", f.paymentRows, f.messages, tt.wantPayments, tt.wantMessages)
			}
			if got := keysText(f.lost); got != tt.wantLost {
				t.Errorf("lost work %s, want %s", got, tt.wantLost)
			}
			if got := keysText(f.ghosts); got != tt.wantGhosts {
				t.Errorf("ghosts %s, want %s", got, tt.wantGhosts)
			}
			if got := keysText(f.pendingAfter); got != tt.wantPending {
				t.Errorf("pending after the relay %s, want %s", got, tt.wantPending)
			}
			if got := keysText(f.ghostChecks); got != tt.wantGhostAsk {
				t.Errorf("provider asked about unrecorded payments %s, want %s", got, tt.wantGhostAsk)
			}
			if f.oneEach != tt.wantOneEach {
				t.Errorf("%d payments with exactly one outbox row, want %d", f.oneEach, tt.wantOneEach)
			}
			if tt.atomic && len(f.leftBehind) != 0 {
				t.Errorf("a killed transaction left rows for %s: SQLite must discard an uncommitted write", keysText(f.leftBehind))
			}
		})
	}
}

func TestSession14LivesAlternateWriteOrder(t *testing.T) {
	t.Parallel()
	run, _ := driveSession14(t, false)
	timeline := strings.Join(run.lines, "\n")
	for _, want := range []string{
		"09:00:00.100Z  PAY-002  life 1 (payment-first, dual write): payment committed → killed (SIGKILL) before the message",
		"09:00:01.100Z  —        RESTART: life 2 (message-first) starts as a new process; the client was told PAY-002 failed",
		"09:00:01.100Z  PAY-004  life 2 (message-first, dual write): message committed → killed (SIGKILL) before the payment",
		"09:00:02.100Z  PAY-006  life 3 (message-first, dual write): message committed → payment committed → client told OK",
		"GHOST: no payment PAY-004 on our books",
	} {
		if !strings.Contains(timeline, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
}

func TestSession14OneTransactionOffFailsTheAfterChecks(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session14After, "--one-transaction=false")
	wantChecks(t, rep, map[string]string{
		"each crash left both rows or neither":     "FAIL 2 crashes between the writes, 2 requests half-written: PAY-002, PAY-004",
		"every payment has exactly one outbox row": "FAIL 4 of 5",
		"no ghosts": "FAIL 1 outbox rows without a payment",
	})
	wantLines(t, rep, "Design    dual write: two separate transactions (--one-transaction=false)")
	if rep.Passed() {
		t.Error("the AFTER scenario passed with the dual write")
	}
}
