package wassal

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/scenarios/scenariotest"
)

func TestSession15Validate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"--crash-point", "before-call", "--stall", "0s"}, ""},
		{[]string{"--batch", "0"}, "--batch must be between 1 and 100, got 0"},
		{[]string{"--lease", "0s"}, "--lease must be between 1ms and 24h, got 0s"},
		{[]string{"--stall", "-1s"}, "--stall must be between 0s and 24h, got -1s"},
		{[]string{"--lease", "48h"}, "--lease must be between 1ms and 24h, got 48h"},
		{[]string{"--crash-point", "sometime"}, `--crash-point must be "after-call", "before-call" or "none", got "sometime"`},
		{[]string{"--declined-key", "PAY-077"}, `--declined-key "PAY-077" is not a seeded payment`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := scenariotest.Bind(t, session15After, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func driveSession15(t *testing.T, naive bool, args ...string) (*session15Run, session15Metrics) {
	t.Helper()
	o, run := driveDesign(t, (*session15Options).drive, session15After, naive, args...)
	return run, o.metrics(run)
}

func TestSession15OwnershipMetricsFollowTheFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		naive         bool
		args          []string
		wantAtOnce    string
		wantCalls     int
		wantNotes     int // customer notifications
		wantMaxNotes  int
		wantStuck     string
		wantRefused   int
		wantLate      int // completions committed after the row moved on
		wantTakeovers string
	}{
		{"naive, defaults", true, nil, "PAY-002, PAY-003", 8, 7, 2, "PAY-001", 0, 4, ""},
		{"leased, defaults", false, nil, "none", 8, 6, 1, "none", 1, 0, "PAY-001 worker-c→worker-b 09:00:30.001Z token 2; PAY-006 worker-a→worker-b 09:00:32.001Z token 2"},
		{"naive, batch 3", true, []string{"--batch", "3"}, "PAY-002, PAY-003, PAY-004", 9, 8, 2, "PAY-001", 0, 6, ""},
		{"naive, polls apart", true, []string{"--overlap=false"}, "none", 6, 5, 1, "PAY-001", 0, 0, ""},
		{"leased, worker-a back in time", false, []string{"--lease", "1m"}, "none", 7, 6, 1, "none", 0, 0, "PAY-001 worker-c→worker-b 09:01:00.001Z token 2"},
		{"leased, fencing off", false, []string{"--fencing=false"}, "none", 8, 7, 2, "none", 0, 1, "PAY-001 worker-c→worker-b 09:00:30.001Z token 2; PAY-006 worker-a→worker-b 09:00:32.001Z token 2"},
		{"leased, worker-c dies before calling", false, []string{"--crash-point", "before-call"}, "none", 7, 6, 1, "none", 1, 0, "PAY-001 worker-c→worker-b 09:00:30.001Z token 2; PAY-006 worker-a→worker-b 09:00:32.001Z token 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, f := driveSession15(t, tt.naive, tt.args...)
			if got := keysText(f.takenAtOnce); got != tt.wantAtOnce {
				t.Errorf("taken by two workers at once: %s, want %s", got, tt.wantAtOnce)
			}
			if f.calls != tt.wantCalls {
				t.Errorf("%d status checks, want %d", f.calls, tt.wantCalls)
			}
			if f.notifications != tt.wantNotes || f.maxNotified != tt.wantMaxNotes {
				t.Errorf("%d notifications (max %d per payment), want %d (max %d)", f.notifications, f.maxNotified, tt.wantNotes, tt.wantMaxNotes)
			}
			if got := keysText(f.stuck); got != tt.wantStuck {
				t.Errorf("stuck in Processing: %s, want %s", got, tt.wantStuck)
			}
			if len(f.refused) != tt.wantRefused || len(f.lateCommitted) != tt.wantLate {
				t.Errorf("%d refused, %d late completions committed; want %d, %d", len(f.refused), len(f.lateCommitted), tt.wantRefused, tt.wantLate)
			}
			var takeovers []string
			for _, x := range f.takeovers {
				takeovers = append(takeovers, fmt.Sprintf("%s %s→%s %s token %d", x.key, x.from, x.to, x.at.Format("15:04:05.000Z"), x.token))
			}
			if got := strings.Join(takeovers, "; "); got != tt.wantTakeovers {
				t.Errorf("takeovers %q, want %q", got, tt.wantTakeovers)
			}
		})
	}
}

func TestSession15LateOwnerIsRefusedAndWritesNothing(t *testing.T) {
	t.Parallel()
	run, f := driveSession15(t, false)
	if len(f.refused) != 1 {
		t.Fatalf("refused %v, want exactly worker-a's late completion", f.refused)
	}
	x := f.refused[0]
	if x.key != "PAY-006" || x.worker != "worker-a" || x.token != 1 || x.ownerToken != 2 || x.at.Format("15:04:05.000") != "09:00:47.000" {
		t.Errorf("refusal %+v, want worker-a on PAY-006 with token 1 against 2 at 09:00:47.000", x)
	}
	for _, n := range run.notifications {
		if n.key == "PAY-006" && n.by == "worker-a" {
			t.Errorf("the refused completion still notified the customer: %+v", n)
		}
	}
}
