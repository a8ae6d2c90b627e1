package crashloop

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"outboxlab/core/child"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/internal/pgtest"
)

var (
	flagN       = flag.Int("crashloop.n", 0, "messages the crash loop drains (0: 2000 on SQLite and 300 on PostgreSQL, or 150 and 100 in a -race build)")
	flagSeed    = flag.Uint64("crashloop.seed", 0, "seed of the kill schedule (0: a new one, printed)")
	flagWorkers = flag.Int("crashloop.workers", 3, "worker processes running at once")
	flagTimeout = flag.Duration("crashloop.timeout", 0, "give up after this long (0: 20 minutes; each worker process settles a step before it can be killed, so the loop ends on any machine)")
	flagLife    = flag.Duration("crashloop.life", 800*time.Millisecond, "a worker is killed at a random moment up to this long after its first settled step")
)

func TestMain(m *testing.M) {
	// A worker process re-executes this test binary: run the worker, not the tests.
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	// A -race binary sleeps a second before it exits (GORACE atexit_sleep_ms),
	// which a worker would spend drained yet alive, in the killer's way.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	pgtest.Main(m)
}

const (
	poisonEvery = 50 // MSG-00050, MSG-00100, ... always fail and end DeadLettered
	// crashLease is real time: the claims of a killed worker come back after it.
	crashLease = time.Second
)

// Worker processes drain the outbox while each is SIGKILLed at a random
// moment of its work and replaced, until one finds nothing live. Leases are
// on the wall clock: the workers are separate processes running at once, and
// a lease means something between them only on a clock they all read.
// Afterwards every message is Processed (or, for a poison key, DeadLettered)
// exactly once, nothing is leased, both files pass integrity_check, and the
// provider counts duplicate deliveries but no duplicate effect.
//
// It runs on SQLite and on PostgreSQL, where a killed worker's sessions are
// ended before its slot restarts (child.EndSessions).
func TestCrashLoopDrainsEveryMessageOnceUnderSIGKILL(t *testing.T) {
	pgtest.OnEach(t, crashLoop)
}

func crashLoop(t *testing.T, on pgtest.Backend) {
	seed := *flagSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill schedule seed %d (rerun with -crashloop.seed=%d)", seed, seed)
	// PostgreSQL commits cost a WAL flush each (the test server keeps fsync on)
	// and the provider's inserts take turns: about 17 ms a message where
	// SQLite takes under 3, so its default loop is smaller.
	sizes := map[string]struct{ n, raceN int }{"sqlite": {2000, 150}, "postgres": {300, 100}}[on.Name]
	n := *flagN
	if n == 0 {
		n = sizes.n
		if raceEnabled {
			n = sizes.raceN
		}
	}
	// Every worker process settles a step before it can be killed, so the
	// loop ends on any machine; the timeout only stops a livelock bug.
	timeout := *flagTimeout
	if timeout == 0 {
		timeout = 20 * time.Minute
	}
	l := newLab(t, on, n, poisonEvery, crashLease)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	s := &supervisor{lab: l, maxLife: *flagLife, rng: rand.New(rand.NewPCG(seed, seed))}
	start := time.Now()
	err := s.run(ctx, *flagWorkers)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("crash loop after %s (%d kills, outbox %s): %v",
			elapsed.Round(time.Millisecond), s.kills, l.counts(t), err)
	}
	got := verify(t, l)
	t.Logf("%d messages drained in %s by %d worker slots: %d Processed, %d DeadLettered",
		l.n, elapsed.Round(time.Millisecond), *flagWorkers, got.processed, got.deadLettered)
	t.Logf("kills (SIGKILL) %d, restarts %d, worker processes %d, claims beyond the first %d",
		s.kills, s.restarts, s.starts, got.extraClaims)
	t.Logf("provider deliveries %d: duplicate deliveries %d, failed %d; effects %d, duplicate effects %d",
		got.stats.Deliveries, got.stats.DuplicateDeliveries, got.stats.FailedDeliveries,
		got.stats.Effects, got.stats.DuplicateEffects)
	if s.kills == 0 {
		t.Errorf("no worker was killed in %s: the crash loop proved nothing", elapsed.Round(time.Millisecond))
	}
}

// The one crash that makes a duplicate delivery, made on purpose: a worker
// dies after the provider took the charge and before the outbox heard of it.
// With idempotency keys the redelivery is answered from the first receipt;
// without them the ledger counts a second effect, so the crash loop's
// "zero duplicate effects" is a check that can fail.
func TestKillBetweenChargeAndCompleteIsRedeliveredOnce(t *testing.T) {
	tests := []struct {
		name              string
		noDedup           bool
		wantEffects       int
		wantDupDeliveries int
		wantDupEffects    int
	}{
		{"provider deduplicates by idempotency key", false, 3, 1, 0},
		{"provider without idempotency keys charges twice", true, 4, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
				ctx := context.Background()
				l := newLab(t, on, 3, 0, 300*time.Millisecond)
				l.worker.batch, l.worker.noDedup = 3, tt.noDedup

				// The first worker claims all three, completes MSG-00001, charges MSG-00002 and dies.
				exit, err := child.Run(ctx, workerEntry, l.args("first", 2)...)
				if err != nil || !exit.Died() {
					t.Fatalf("first worker ended %+v, %v; want killed after its second charge", exit, err)
				}
				assertStatuses(t, l, "after the kill", outbox.Processed, outbox.Processing, outbox.Processing)

				// The second waits out the dead worker's lease and takes both over.
				exit, err = child.Run(ctx, workerEntry, l.args("second", 0)...)
				if err != nil || exit.Code != 0 {
					t.Fatalf("second worker ended %+v, %v; want exit 0", exit, err)
				}
				msgs := assertStatuses(t, l, "after the restart", outbox.Processed, outbox.Processed, outbox.Processed)
				for i, want := range []int{1, 2, 2} {
					if msgs[i].AttemptCount != want || msgs[i].ClaimToken != int64(want) {
						t.Errorf("%s: attempts %d token %d, want %d and %d", msgs[i].Key, msgs[i].AttemptCount, msgs[i].ClaimToken, want, want)
					}
				}
				prov, err := provider.OpenDurable(ctx, l.worker.providerDB)
				if err != nil {
					t.Fatal(err)
				}
				defer prov.Close()
				st, err := prov.Stats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if st.Deliveries != 4 || st.Effects != tt.wantEffects || st.DuplicateDeliveries != tt.wantDupDeliveries || st.DuplicateEffects != tt.wantDupEffects {
					t.Errorf("provider ledger %+v, want 4 deliveries, %d effects, %d duplicate deliveries, %d duplicate effects",
						st, tt.wantEffects, tt.wantDupDeliveries, tt.wantDupEffects)
				}
			})
		})
	}
}

func assertStatuses(t *testing.T, l *lab, when string, want ...outbox.Status) []outbox.Message {
	t.Helper()
	store, err := outbox.OpenExisting(context.Background(), l.worker.outboxDB)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	msgs, err := store.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if m.Status != want[i] {
			t.Errorf("%s: %s is %s, want %s", when, m.Key, m.Status, want[i])
		}
	}
	return msgs
}
