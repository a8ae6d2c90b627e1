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
// run cannot show, and the check that must name each.
var issue40Bugs = []struct{ bug, want string }{
	{"payment-no-updated-at", "UpdatedAtUtc, ProcessedAtUtc and DeadLetteredAtUtc written with their change"},
	{"processed-no-processed-at", "UpdatedAtUtc, ProcessedAtUtc and DeadLetteredAtUtc written with their change"},
	{"claims-newest-first", "claims take the oldest claimable messages first"},
	{"lease-at-boundary", "every claim takes the lease and the token"},
	{"gate-strict", "no worker sleeps while one is claimable"},
	{"null-max-as-zero", "the transient key Processed after K+1 attempts"},
	{"max-from-env", "the poison tried exactly MaxAttempts times"},
	{"backoff-from-claim", "every retry waited for its NextAttemptUtc = failure time + backoff(n), exactly"},
	{"keeps-first-error", "every retry waited for its NextAttemptUtc = failure time + backoff(n), exactly"},
	{"no-dead-letter-at-claim", "the poison tried exactly MaxAttempts times"},
	{"no-owner-check", "the stalled worker's late completion refused by the owner and token check"},
	{"no-lease-expiry", "the killed worker's message taken over after its lease"},
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

// gradeSeed grades command on Day 16 with seed.
func gradeSeed(t *testing.T, seed uint64, command ...string) graded {
	t.Helper()
	o := &grade.Options{Day: grade.Lookup("session-16"), Seed: seed, Variations: grade.DefaultVariations,
		TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: command}
	rep, err := o.Run(t.Context(), scenarios.NewEnv(t.TempDir()))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return graded{rep: rep}
}

// TestBugsOfIssue40UnderEverySeed: under each proof seed the Go reference
// passes Day 16, its starter fails, and every wrong worker of issue 40
// fails with the check that names its bug.
func TestBugsOfIssue40UnderEverySeed(t *testing.T) {
	for _, seed := range proofSeeds(t) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			if g := gradeSeed(t, seed, referenceGo); !g.rep.Passed() {
				t.Errorf("the Go reference failed %q", g.failed())
			}
			if g := gradeSeed(t, seed, starterOf["session-16"]); g.rep.Passed() {
				t.Error("the Day 16 starter passed")
			}
			for _, b := range issue40Bugs {
				g := gradeSeed(t, seed, wrongGo, "-bug", b.bug)
				failed := g.failed()
				if g.rep.Passed() || !slices.ContainsFunc(failed, func(c string) bool { return strings.Contains(c, b.want) }) {
					t.Errorf("%s: no failing check names it (%q); failing: %q", b.bug, b.want, failed)
				}
			}
		})
	}
}
