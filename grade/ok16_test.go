package grade

import (
	"regexp"
	"strings"
	"testing"
)

func TestDay16GoodWorkerPasses(t *testing.T) {
	rep, stderr := gradeRun(t, "session-16", DefaultSeed, okWorker)
	if !rep.Passed() {
		t.Errorf("the good worker failed:\n%s\nstderr:\n%s", rep.Body(), stderr)
	}
	if testing.Verbose() {
		t.Log("\n" + rep.Body())
	}
	if n := strings.Count(rep.Body(), "## Checks —"); n != 1+DefaultVariations {
		t.Errorf("%d checks sections, want %d", n, 1+DefaultVariations)
	}
}

func TestPoisonCounterGoodWorkerPasses(t *testing.T) {
	rep, stderr := gradeRun(t, "poison-counter", DefaultSeed, okWorker)
	if !rep.Passed() {
		t.Errorf("the good worker failed: %q\n%s\nstderr:\n%s", failed(rep), rep.Body(), stderr)
	}
}

func TestPoisonCounterCountOnCatchFails(t *testing.T) {
	t.Setenv("OK16_BUG", "no-claim-dead-letter")
	rep, _ := gradeRun(t, "poison-counter", DefaultSeed, okWorker)
	failsWith(t, rep, "the lethal message DeadLettered after exactly MaxAttempts")
	failsWith(t, rep, "restarts = MaxAttempts")
}

func TestDay15GoodWorkerPasses(t *testing.T) {
	rep, stderr := gradeRun(t, "session-15", DefaultSeed, okWorker)
	if !rep.Passed() {
		t.Errorf("the good worker failed: %q\n%s\nstderr:\n%s", failed(rep), rep.Body(), stderr)
	}
}

// TestOtherSeedsPass grades the test worker on other seeds' variations (more
// workers, other batches and leases): a correct worker passes them all, so
// no check holds only for the default numbers.
func TestOtherSeedsPass(t *testing.T) {
	for _, d := range Days() {
		for _, seed := range []uint64{1, 99} {
			day := d.ID
			rep, _ := gradeRun(t, day, seed, passingWorker(day))
			if !rep.Passed() {
				t.Errorf("%s --seed %d: failed %q", day, seed, failed(rep))
			}
		}
	}
}

func TestDay17GoodRedrivePasses(t *testing.T) {
	rep, stderr := gradeRun(t, "session-17", DefaultSeed, okWorker)
	if !rep.Passed() {
		t.Errorf("the good redrive failed: %q\n%s\nstderr:\n%s", failed(rep), rep.Body(), stderr)
	}
	// The Redrives table is read with the other rows, while the database is
	// open (it was once read after, and every variation said it could not be).
	body := rep.Body()
	if strings.Contains(body, "cannot be read") || !regexp.MustCompile(`(?m)^│ PAY-003 +│ 1 +│ 3 +│ Closed `).MatchString(body) {
		t.Errorf("the report does not show PAY-003's Redrives row, released in batch 1 and closed:\n%s", body)
	}
}

// TestDay17WrongRedrivesFail: a redrive that resets the counters, skips the
// audit or releases everything in one batch fails the check naming it.
func TestDay17WrongRedrivesFail(t *testing.T) {
	for bug, check := range map[string]string{
		"reset-counters": "counters kept",
		"no-audit":       "one AuditLog row names the approver",
		"one-batch":      "released in batches of at most",
	} {
		t.Run(bug, func(t *testing.T) {
			t.Setenv("OK16_BUG", bug)
			rep, _ := gradeRun(t, "session-17", DefaultSeed, okWorker)
			failsWith(t, rep, check)
		})
	}
}
