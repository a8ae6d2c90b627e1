package workers_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"outboxlab/grade"
	"outboxlab/scenarios"
)

// issue40Bugs are the wrong workers of issue 40, one per bug the course's
// run cannot show, the Day whose runs make it observable, and the check
// that must name each.
var issue40Bugs = []struct{ day, bug, want string }{
	{"session-16", "payment-no-updated-at", "UpdatedAtUtc, ProcessedAtUtc and DeadLetteredAtUtc written with their change"},
	{"session-16", "processed-no-processed-at", "UpdatedAtUtc, ProcessedAtUtc and DeadLetteredAtUtc written with their change"},
	{"session-16", "claims-newest-first", "claims take the oldest claimable messages first"},
	{"session-16", "lease-at-boundary", "every claim takes the lease and the token"},
	{"session-16", "gate-strict", "no worker sleeps while one is claimable"},
	{"session-16", "null-max-as-zero", "the transient key Processed after K+1 attempts"},
	{"session-16", "max-from-env", "the poison tried exactly MaxAttempts times"},
	{"session-16", "backoff-from-claim", "every retry waited for its NextAttemptUtc = failure time + backoff(n), exactly"},
	{"session-16", "keeps-first-error", "every retry waited for its NextAttemptUtc = failure time + backoff(n), exactly"},
	{"session-16", "no-dead-letter-at-claim", "the poison tried exactly MaxAttempts times"},
	{"session-16", "no-owner-check", "the stalled worker's late completion refused by the owner and token check"},
	{"session-16", "no-lease-expiry", "the killed worker's message taken over after its lease"},
	// The lease's boundary on every Day whose worker takes a lease.
	{"session-16", "lease-early", "every claim takes the lease and the token"},
	{"session-15", "lease-at-boundary", "every claim takes the lease and the token"},
	{"session-15", "lease-early", "every claim takes the lease and the token"},
	{"poison-counter", "lease-at-boundary", "every claim takes the lease and the token"},
	{"poison-counter", "lease-early", "every claim takes the lease and the token"},
}

// proofSeeds are the seeds of the proof: OUTBOXLAB_PROOF_SEEDS of them (10
// is issue 40's proof), else 2 (1 with -short), the default seed first.
func proofSeeds(t *testing.T) []uint64 {
	n := 2
	if testing.Short() {
		n = 1
	}
	if v := os.Getenv("OUTBOXLAB_PROOF_SEEDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 50 {
			t.Fatalf("OUTBOXLAB_PROOF_SEEDS %q: want 1 to 50", v)
		}
	}
	seeds := []uint64{grade.DefaultSeed}
	for s := uint64(1); len(seeds) < n; s++ {
		seeds = append(seeds, s)
	}
	return seeds
}

// gradeSeed grades command on day with seed.
func gradeSeed(t *testing.T, day string, seed uint64, command ...string) graded {
	t.Helper()
	o := &grade.Options{Day: grade.Lookup(day), Seed: seed, Variations: grade.DefaultVariations,
		TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: command}
	rep, err := o.Run(t.Context(), scenarios.NewEnv(t.TempDir()))
	if err != nil {
		t.Fatalf("%s, seed %d: %v", day, seed, err)
	}
	return graded{rep: rep}
}

// TestBugsOfIssue40UnderEverySeed: under each proof seed the Go reference
// passes every Day, each Day's starter fails, and every wrong worker of
// issue 40 fails its Day with the check that names its bug.
func TestBugsOfIssue40UnderEverySeed(t *testing.T) {
	for _, seed := range proofSeeds(t) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			for _, day := range referenceDays() {
				if g := gradeSeed(t, day, seed, referenceGo); !g.rep.Passed() {
					t.Errorf("%s: the Go reference failed %q", day, g.failed())
				}
				if starterOf[day] == "" {
					continue // a Day with no starter yet
				}
				if g := gradeSeed(t, day, seed, starterOf[day]); g.rep.Passed() {
					t.Errorf("%s: the starter passed", day)
				}
			}
			for _, b := range issue40Bugs {
				g := gradeSeed(t, b.day, seed, wrongGo, "-bug", b.bug)
				failed := g.failed()
				if g.rep.Passed() || !slices.ContainsFunc(failed, func(c string) bool { return strings.Contains(c, b.want) }) {
					t.Errorf("%s on %s: no failing check names it (%q); failing: %q", b.bug, b.day, b.want, failed)
				}
			}
		})
	}
}

// day18Bugs are Day 18's wrong workers (workers/wrong/bugs18.go), and the
// check that must name each.
var day18Bugs = []struct{ bug, want string }{
	{"no-renewal", "every lease renewed at least RENEW_MARGIN before it ended"},
	{"renew-no-owner-check", "only the current holder renews or settles a message"},
	{"renew-after-expiry", "every lease renewed at least RENEW_MARGIN before it ended"},
	{"unbounded-renewal", "renewals stop at the cap"},
	{"drain-counts-attempt", "a drained worker claims nothing more, releases what it holds"},
	{"drain-abandons", "a drained worker claims nothing more, releases what it holds"},
	{"tight-poll", "no busy polling"},
	{"waits-only-for-new-work", "a message whose worker died is taken again within one lease"},
}

// TestDay18BugsUnderEverySeed: under each proof seed every Day 18 wrong
// worker fails with the check that names its bug (OUTBOXLAB_PROOF_SEEDS=10
// is issue 44's proof; the reference and the starter under the same seeds
// are TestBugsOfIssue40UnderEverySeed's, which grades every Day).
func TestDay18BugsUnderEverySeed(t *testing.T) {
	for _, seed := range proofSeeds(t) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			for _, b := range day18Bugs {
				g := gradeSeed(t, "session-18", seed, wrongGo, "-bug", b.bug)
				failed := g.failed()
				if g.rep.Passed() || !slices.ContainsFunc(failed, func(c string) bool { return strings.Contains(c, b.want) }) {
					t.Errorf("%s: no failing check names it (%q); failing: %q", b.bug, b.want, failed)
				} else {
					t.Logf("seed %d: %s → %s", seed, b.bug, b.want)
				}
			}
		})
	}
}
