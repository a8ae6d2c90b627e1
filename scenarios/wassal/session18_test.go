package wassal

import (
	"strings"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

func driveSession18(t *testing.T, after bool, args ...string) (*session18Options, *session18Run, session18Metrics) {
	t.Helper()
	o, run := driveDesign(t, (*session18Options).drive, session18After, after, args...)
	return o, run, o.metrics(run)
}

// The rows and ledgers each design leaves: without renewal both handlers
// lose their message and the provider is asked twice for each; with it
// worker-a keeps PAY-001 (token 1, one status check) and PAY-002 is lost
// only at the cap and retried after it.
func TestSession18RowsAndLedgers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		after               bool
		args                []string
		wantCalls           int
		wantTokens          [2]int64 // PAY-001, PAY-002 as the rows end
		wantRenewals        int
		wantRefused, wantNo int // late completions refused; committed
		wantNotified        [2]string
	}{
		{"no renewal", false, nil, 4, [2]int64{2, 2}, 0, 2, 0, [2]string{"worker-c", "worker-c"}},
		{"no renewal, no fencing", false, []string{"--fencing=false"}, 4, [2]int64{2, 2}, 0, 0, 2,
			[2]string{"worker-c, worker-a", "worker-c, worker-b"}},
		{"renewal", true, nil, 3, [2]int64{1, 2}, 8, 1, 0, [2]string{"worker-a", "worker-c"}},
		{"renewal, cap under the handler", true, []string{"--renew-cap", "1m"}, 4, [2]int64{2, 2}, 4, 2, 0,
			[2]string{"worker-c", "worker-c"}},
		{"renewal, nobody else polls", true, []string{"--rival=false"}, 2, [2]int64{1, 1}, 8, 0, 0,
			[2]string{"worker-a", "worker-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, run, f := driveSession18(t, tt.after, tt.args...)
			if f.callCount != tt.wantCalls || len(f.renewals) != tt.wantRenewals ||
				len(f.refused) != tt.wantRefused || len(f.lateCommitted) != tt.wantNo {
				t.Errorf("calls %d, renewals %d, refused %d, committed late %d; want %d, %d, %d, %d",
					f.callCount, len(f.renewals), len(f.refused), len(f.lateCommitted),
					tt.wantCalls, tt.wantRenewals, tt.wantRefused, tt.wantNo)
			}
			for i, k := range PaymentKeys(payments18) {
				m := messageOf(run.ledger, k)
				var by []string
				for _, n := range f.notified[k] {
					by = append(by, n.by)
				}
				if m.ClaimToken != tt.wantTokens[i] || m.Status != outbox.Processed || strings.Join(by, ", ") != tt.wantNotified[i] {
					t.Errorf("%s: token %d, %s, notified by %q; want token %d, Processed, %q",
						k, m.ClaimToken, m.Status, strings.Join(by, ", "), tt.wantTokens[i], tt.wantNotified[i])
				}
			}
		})
	}
}

// Renewals run on the lease the row carries: each at the margin before it
// ends, none past the cap; the last lease of PAY-002 ends exactly at the cap
// and worker-c's claim comes just after it.
func TestSession18RenewalsFollowTheRow(t *testing.T) {
	t.Parallel()
	o, run, f := driveSession18(t, true, "--lease", "10s", "--margin", "2s", "--renew-cap", "45s", "--handler", "20s")
	for _, x := range f.renewals {
		if left := x.before.LockedUntil.Sub(x.at); left != 2*time.Second {
			t.Errorf("%s renewed at %s with %s left, want the 2s margin", x.key, clock.Stamp(x.at), left)
		}
	}
	cs := f.calls[PaymentKey(2)]
	capEnd := clock.Start.Add(claimB18At + o.RenewCap)
	if len(cs) != 2 || !cs[1].At.Equal(capEnd.Add(time.Millisecond)) {
		t.Fatalf("PAY-002's status checks %v, want the retry 1ms after the cap ends %s", cs, clock.Stamp(capEnd))
	}
	if len(run.capped) != 1 || !run.capped[0].leaseEnd.Equal(capEnd) {
		t.Errorf("capped %+v, want PAY-002's lease ending at %s", run.capped, clock.Stamp(capEnd))
	}
}

// The AFTER's checks catch renewals a wrong worker makes: after the lease
// ended, inside the margin, with another token, past the cap.
func TestSession18RenewalCheckCatchesWrongRenewals(t *testing.T) {
	t.Parallel()
	o, run, f := driveSession18(t, true)
	good := f.renewals[0]
	at := func(d time.Duration) time.Time { return good.before.LockedUntil.Add(d) }
	wrong := map[string]func(x *renewal18){
		"after the lease ended": func(x *renewal18) { x.at = at(time.Second) },
		"inside the margin":     func(x *renewal18) { x.at = at(-time.Second) },
		"with another token":    func(x *renewal18) { x.before.ClaimToken = 2 },
		"by another worker":     func(x *renewal18) { x.before.LockedBy = "worker-c" },
		"past the cap":          func(x *renewal18) { x.after.LockedUntil = clock.Start.Add(o.RenewCap + time.Second) },
		"moving nothing":        func(x *renewal18) { x.after.LockedUntil = x.before.LockedUntil },
	}
	for name, spoil := range wrong {
		x := good
		spoil(&x)
		f.renewals = append([]renewal18{x}, f.renewals[1:]...)
		r := report.New(session18After, report.After)
		o.renewalsInTime(r, run, f)
		if c := r.Result().Checks[0]; c.Passed {
			t.Errorf("a renewal %s passed: %s", name, c.Detail)
		}
	}
}
