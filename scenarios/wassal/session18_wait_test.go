package wassal

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
)

func driveWait(t *testing.T, after bool, args ...string) (*waitOptions, *waitRun, waitMetrics) {
	t.Helper()
	o, run := driveDesign(t, (*waitOptions).drive, waitAfter, after, args...)
	return o, run, o.metrics(run)
}

// What each design leaves, on the scenario clock: polling every 10s makes
// each message wait 2-4s and 61 of 66 claim statements find nothing; woken,
// every message is claimed at its insert's moment with 26 polls; without
// the wake, a message waits for the next fallback poll (a minute apart,
// worker-b half a minute after worker-a); polling every second
// catches each at once with 596 polls.
func TestWaitLatencyAndPolls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		after              bool
		args               []string
		waits              string // each message's wait, in key order
		polls, empty, idle int
	}{
		{"polling", false, nil, "3s 2s 4s 4s 3s", 66, 61, 56},
		{"polling every second", false, []string{"--poll-interval", "1s"}, "0s 0s 0s 0s 0s", 596, 591, 586},
		{"woken", true, nil, "0s 0s 0s 0s 0s", 26, 21, 11},
		{"no wake, the fallback poll", true, []string{"--notify=false"}, "23s 27s 29s 14s 18s", 16, 11, 6},
		{"nothing written", true, []string{"--messages", "0"}, "", 11, 11, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, run, f := driveWait(t, tt.after, tt.args...)
			var waits []string
			for _, m := range run.ledger.Messages {
				waits = append(waits, durationText(f.latency[m.Key]))
			}
			if got := strings.Join(waits, " "); got != tt.waits || f.polls != tt.polls || f.empty != tt.empty || f.idle != tt.idle {
				t.Errorf("waits %q, polls %d, empty %d, idle %d; want %q, %d, %d, %d",
					got, f.polls, f.empty, f.idle, tt.waits, tt.polls, tt.empty, tt.idle)
			}
			if len(run.polls) != f.polls {
				t.Errorf("%d polls recorded, %d counted", len(run.polls), f.polls)
			}
		})
	}
}

// Each check catches a wrong wait: a worker that polls in a tight loop, a
// message that waited or was never claimed, a polling run with no wait or
// no idle polls, a payment notified twice. The metrics are read again from
// the spoiled run, so the classification of the polls is tested too.
func TestWaitChecksCatchWrongWaits(t *testing.T) {
	t.Parallel()
	ao, arun, _ := driveWait(t, true)
	bo, brun, _ := driveWait(t, false)
	at := func(d time.Duration) time.Time { return clock.Start.Add(d) }
	tight := func(run *waitRun) {
		for i := range 5 {
			run.polls = append(run.polls, poll18{worker: "worker-b", at: at(40*time.Second + time.Duration(i)*time.Second)})
		}
		slices.SortStableFunc(run.polls, func(a, b poll18) int { return a.at.Compare(b.at) })
	}
	wrong := []struct {
		name   string
		after  bool
		check  func(o *waitOptions, r *report.Report, run *waitRun, f waitMetrics)
		spoil  func(run *waitRun)
		reason string
	}{
		{"a tight poll loop", true, func(o *waitOptions, r *report.Report, _ *waitRun, f waitMetrics) { o.noBusyPolling(r, f) },
			tight, "worker-b polled an empty queue at 09:00:40.000Z and again at 09:00:41.000Z"},
		{"a message claimed at the next poll", true, (*waitOptions).claimedAtInsert, func(run *waitRun) {
			run.ledger.Calls[0].At = run.ledger.Calls[0].At.Add(3 * time.Second)
		}, "it waited 3s for a poll"},
		{"a message never claimed", true, (*waitOptions).claimedAtInsert, func(run *waitRun) {
			run.ledger.Calls = run.ledger.Calls[1:]
		}, "was never claimed"},
		{"a payment notified twice", true, (*waitOptions).eachOnce, func(run *waitRun) {
			run.notifications = append(run.notifications, run.notifications[0])
		}, "notified 2 times"},
		{"polling with no wait", false, (*waitOptions).waitedForPoll, func(run *waitRun) {
			for i, c := range run.ledger.Calls {
				run.ledger.Calls[i].At = messageOf(run.ledger, c.Key).CreatedAt
			}
		}, "every message was claimed at its insert's moment"},
		{"polling that found work each time", false, func(o *waitOptions, r *report.Report, _ *waitRun, f waitMetrics) {
			o.polledEmpty(r, f)
		}, func(run *waitRun) {
			run.polls = slices.DeleteFunc(run.polls, func(p poll18) bool { return p.found == 0 })
		}, "0 of 5 polls found nothing"},
	}
	for _, w := range wrong {
		o, good := ao, arun
		if !w.after {
			o, good = bo, brun
		}
		r := report.New(waitAfter, report.After)
		w.check(o, r, good, o.metrics(good))
		if c := r.Result().Checks[0]; !c.Passed {
			t.Fatalf("%s: the unspoiled run fails the check: %s", w.name, c.Detail)
		}
		spoiled := *good
		spoiled.polls = slices.Clone(good.polls)
		spoiled.notifications = slices.Clone(good.notifications)
		spoiled.ledger.Calls = slices.Clone(good.ledger.Calls)
		w.spoil(&spoiled)
		r = report.New(waitAfter, report.After)
		w.check(o, r, &spoiled, o.metrics(&spoiled))
		if c := r.Result().Checks[0]; c.Passed || !strings.Contains(c.Detail, w.reason) {
			t.Errorf("%s: passed %v, detail %q; want a failure naming %q", w.name, c.Passed, c.Detail, w.reason)
		}
	}
}

// The wake reaches every listener once the producer's transaction commits,
// on both databases (on PostgreSQL a NOTIFY to each LISTEN connection), and
// a wake of another message is refused, not taken for this one's.
func TestWakeReachesEveryListener(t *testing.T) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
		ctx := context.Background()
		db := on.Database(t, "wake")
		store, err := Day(16).Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		w, err := newWaker(ctx, db, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer w.close()
		if _, isPG := w.(*pgWaker); isPG != (on.Name == "postgres") {
			t.Fatalf("the waker on %s is a %T", on.Name, w)
		}
		notify := func(key string) {
			if err := store.InTx(ctx, func(tx *sql.Tx) error { return w.notifyTx(ctx, tx, key) }); err != nil {
				t.Fatal(err)
			}
		}
		notify(PaymentKey(1))
		if err := w.committed(ctx, PaymentKey(1)); err != nil {
			t.Fatalf("the wake of PAY-001: %v", err)
		}
		notify(PaymentKey(2))
		if err := w.committed(ctx, PaymentKey(3)); err == nil || !strings.Contains(err.Error(), "PAY-002") {
			t.Errorf("PAY-002's wake taken for PAY-003's: err = %v", err)
		}
	})
}
