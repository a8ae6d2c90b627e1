package wassal

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

func driveShutdown(t *testing.T, after bool, args ...string) (*shutdownOptions, *shutdownRun, shutdownMetrics) {
	t.Helper()
	o, run := driveDesign(t, (*shutdownOptions).drive, shutdownAfter, after, args...)
	return o, run, o.metrics(run)
}

// The rows and ledgers each design leaves: exiting at once strands
// PAY-001..003 until their lease ends, each with an attempt counted; the
// drain completes PAY-001, releases PAY-002 uncounted and leaves only the
// hung PAY-003 to its lease after the KILL.
func TestShutdownRowsAndLedgers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		after     bool
		args      []string
		attempts  string // PAY-001..PAY-004's AttemptCount as the run ends
		notified  string // who notified each, in key order
		left      string // held by worker-a when it went
		released  string
		gone      time.Duration
		killed    bool
		retakenAt time.Duration // PAY-003's second status check
	}{
		{"exit at once", false, nil, "2 2 2 1", "b b b b", "PAY-001, PAY-002, PAY-003", "", 10 * time.Second, false,
			time.Minute + 4*time.Second + time.Millisecond},
		{"exit at once, late restart", false, []string{"--restart", "2m"}, "2 2 2 1", "b b b b", "PAY-001, PAY-002, PAY-003", "",
			10 * time.Second, false, 2*time.Minute + 14*time.Second},
		{"drain", true, nil, "1 1 2 1", "a b b b", "PAY-003", "PAY-002", 40 * time.Second, true,
			time.Minute + time.Millisecond},
		{"drain, the release counted", true, []string{"--count-release"}, "1 2 2 1", "a b b b", "PAY-003", "PAY-002",
			40 * time.Second, true, time.Minute + time.Millisecond},
		{"drain, the hang ends within it", true, []string{"--hang", "20s"}, "1 1 1 1", "a b a b", "", "PAY-002",
			25 * time.Second, false, 0},
		{"drain of nothing", true, []string{"--stop-at", "0s"}, "1 1 1 1", "b b b b", "", "", 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, run, f := driveShutdown(t, tt.after, tt.args...)
			var attempts, notified []string
			for _, k := range PaymentKeys(shutdownPays) {
				m := messageOf(run.ledger, k)
				attempts = append(attempts, strconv.Itoa(m.AttemptCount))
				by := ""
				for _, n := range f.notified[k] {
					by += strings.TrimPrefix(n.by, "worker-")
				}
				notified = append(notified, by)
				if m.Status != outbox.Processed {
					t.Errorf("%s ends %s, want Processed", k, m.Status)
				}
			}
			got := []string{strings.Join(attempts, " "), strings.Join(notified, " "), keysText(f.leftToLease), keysText(f.released)}
			want := []string{tt.attempts, tt.notified, keysText(splitKeys(tt.left)), keysText(splitKeys(tt.released))}
			if !slices.Equal(got, want) {
				t.Errorf("attempts, notified by, left to the lease, released = %q, want %q", got, want)
			}
			if !run.gone.Equal(clock.Start.Add(tt.gone)) || run.killed != tt.killed {
				t.Errorf("worker-a gone at %s (killed %v), want %s (killed %v)", clock.Stamp(run.gone), run.killed,
					stampAt(tt.gone), tt.killed)
			}
			if cs := f.calls[PaymentKey(3)]; tt.retakenAt > 0 && (len(cs) != 2 || !cs[1].At.Equal(clock.Start.Add(tt.retakenAt))) {
				t.Errorf("PAY-003's status checks %v, want the second at %s", cs, stampAt(tt.retakenAt))
			}
		})
	}
}

func splitKeys(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ", ")
}

// shutdownCase is a run and its metrics, spoiled as a wrong worker would
// leave them.
type shutdownCase struct {
	run *shutdownRun
	f   shutdownMetrics
}

// clone copies what a spoiler may change.
func (c shutdownCase) clone() shutdownCase {
	run := *c.run
	run.releases = slices.Clone(run.releases)
	run.atDeadline = slices.Clone(run.atDeadline)
	run.atGone = slices.Clone(run.atGone)
	run.ledger.Messages = slices.Clone(run.ledger.Messages)
	f := c.f
	f.calls = maps.Clone(f.calls)
	f.notified = maps.Clone(f.notified)
	return shutdownCase{&run, f}
}

// setRow replaces key's row in rows.
func setRow(rows []outbox.Message, key string, change func(m *outbox.Message)) {
	for i := range rows {
		if rows[i].Key == key {
			change(&rows[i])
		}
	}
}

// Each AFTER check catches the drain a wrong worker makes, and each
// BEFORE check and the invariant catch a run that does not show the
// failure: every spoiled run fails the check named, the unspoiled one
// passes it.
func TestShutdownChecksCatchWrongDrains(t *testing.T) {
	t.Parallel()
	ao, arun, af := driveShutdown(t, true)
	bo, brun, bf := driveShutdown(t, false)
	at := func(d time.Duration) time.Time { return clock.Start.Add(d) }
	call := func(key string, d time.Duration) provider.Call {
		return provider.Call{At: at(d), Op: provider.OpStatusCheck, Key: key}
	}
	wrong := []struct {
		name   string
		after  bool
		check  func(o *shutdownOptions, r *report.Report, run *shutdownRun, f shutdownMetrics)
		spoil  func(c *shutdownCase)
		reason string
	}{
		{"keeps claiming in the drain", true, (*shutdownOptions).claimedNothing, func(c *shutdownCase) {
			c.f.calls[PaymentKey(4)] = []provider.Call{call(PaymentKey(4), 20*time.Second)}
		}, "PAY-004 was claimed"},
		{"abandons a handler that returned", true, (*shutdownOptions).finishedInDrain, func(c *shutdownCase) {
			c.f.notified[PaymentKey(1)] = []notification{{key: PaymentKey(1), by: "worker-b", at: clock.ISO(at(time.Minute))}}
		}, "PAY-001"},
		{"a release that counts the attempt", true, (*shutdownOptions).releasedUncounted, func(c *shutdownCase) {
			c.run.releases[0].after.AttemptCount = c.run.releases[0].before.AttemptCount
		}, "AttemptCount 1 → 1"},
		{"a release that keeps the owner", true, (*shutdownOptions).releasedUncounted, func(c *shutdownCase) {
			c.run.releases[0].after.LockedBy = "worker-a"
		}, "→ Pending by worker-a"},
		{"a release that moves the token", true, (*shutdownOptions).releasedUncounted, func(c *shutdownCase) {
			c.run.releases[0].after.ClaimToken++
		}, "(token 2)"},
		{"a drain that abandons its claims", true, (*shutdownOptions).letGoByDeadline, func(c *shutdownCase) {
			setRow(c.run.atDeadline, PaymentKey(2), func(m *outbox.Message) { m.Status, m.LockedBy = outbox.Processing, "worker-a" })
		}, "still held PAY-002"},
		{"a worker that outstays its deadline", true, (*shutdownOptions).letGoByDeadline, func(c *shutdownCase) {
			setRow(c.run.atDeadline, PaymentKey(3), func(m *outbox.Message) { m.Status, m.LockedBy = outbox.Pending, "" })
			c.run.killed = false
		}, "after its deadline"},
		{"a killed claim taken before its lease ended", true, (*shutdownOptions).survivedKill, func(c *shutdownCase) {
			c.f.calls[PaymentKey(3)] = []provider.Call{call(PaymentKey(3), 0), call(PaymentKey(3), 50*time.Second)}
		}, "not between"},
		{"a killed claim taken more than a lease after", true, (*shutdownOptions).survivedKill, func(c *shutdownCase) {
			c.f.calls[PaymentKey(3)] = []provider.Call{call(PaymentKey(3), 0), call(PaymentKey(3), 2*time.Minute)}
		}, "not between"},
		{"a killed claim never taken again", true, (*shutdownOptions).survivedKill, func(c *shutdownCase) {
			c.f.calls[PaymentKey(3)] = c.f.calls[PaymentKey(3)][:1]
		}, "never taken again"},
		{"stranded work taken before its lease ended", false, (*shutdownOptions).stranded, func(c *shutdownCase) {
			c.f.calls[PaymentKey(2)] = []provider.Call{call(PaymentKey(2), 0), call(PaymentKey(2), 30*time.Second)}
		}, "before its lease ended"},
		{"stranded work whose attempt was given back", false, (*shutdownOptions).countedUnfinished, func(c *shutdownCase) {
			setRow(c.run.ledger.Messages, PaymentKey(1), func(m *outbox.Message) { m.AttemptCount = 1 })
		}, "AttemptCount 1 for 1 completion"},
		{"a payment notified twice", true, (*shutdownOptions).oneCompletionEach, func(c *shutdownCase) {
			c.f.notified[PaymentKey(2)] = append(slices.Clone(c.f.notified[PaymentKey(2)]), c.f.notified[PaymentKey(2)]...)
		}, "notified 2 times"},
	}
	for _, w := range wrong {
		o, good := ao, shutdownCase{arun, af}
		if !w.after {
			o, good = bo, shutdownCase{brun, bf}
		}
		r := report.New(shutdownAfter, report.After)
		w.check(o, r, good.run, good.f)
		if c := r.Result().Checks[0]; !c.Passed {
			t.Fatalf("%s: the unspoiled run fails the check: %s", w.name, c.Detail)
		}
		spoiled := good.clone()
		w.spoil(&spoiled)
		r = report.New(shutdownAfter, report.After)
		w.check(o, r, spoiled.run, spoiled.f)
		if c := r.Result().Checks[0]; c.Passed || !strings.Contains(c.Detail, w.reason) {
			t.Errorf("%s: passed %v, detail %q; want a failure naming %q", w.name, c.Passed, c.Detail, w.reason)
		}
	}
}

// The drive records its row changes for the replay page and --step: the
// step of the drain deadline shows PAY-002's release as the database holds
// it (AttemptCount 1 → 0, Status Processing → Pending), and every step
// carries the timeline lines of its act.
func TestShutdownRecordsItsRowChanges(t *testing.T) {
	t.Parallel()
	o := scenariotest.Bind(t, shutdownAfter).(*shutdownOptions)
	db := dialect.File(filepath.Join(t.TempDir(), "outbox.db"))
	rec := changelog.New(0)
	defer rec.Close()
	run, err := o.drive(rec.Watch(context.Background(), "AFTER", db), db, true)
	if err != nil {
		t.Fatal(err)
	}
	l := rec.Log()
	if len(l.Designs) != 1 || len(l.Steps) == 0 {
		t.Fatalf("recorded %d designs and %d steps, want the design and its steps", len(l.Designs), len(l.Steps))
	}
	var release []string
	for _, s := range l.Steps {
		if s.Text == "" {
			t.Errorf("step %d at %s has no timeline text", s.N, s.At)
		}
		for _, c := range s.Changes {
			for _, cell := range c.Cells {
				if c.Table == "outboxmessages" && c.Key == "2" && (cell.Column == "attemptcount" || cell.Column == "status") &&
					cell.Old != nil && cell.New != nil {
					release = append(release, s.At+" "+cell.Column+" "+*cell.Old+"→"+*cell.New)
				}
			}
		}
	}
	deadline := clock.ISO(run.deadline)
	for _, want := range []string{deadline + " attemptcount 1→0", deadline + " status Processing→Pending"} {
		if !slices.Contains(release, want) {
			t.Errorf("PAY-002's recorded changes %q lack %q", release, want)
		}
	}
}
