package cli

import (
	"slices"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// TestEveryHeadlineIsTrue: the verdict's headline is true of its run, at
// every run TestNoCheckHoldsOnNothing makes (shared through judgeAll's
// cache). A FAIL or NOT REPRODUCED headline names every check that broke
// (the broken invariants when one broke); a NOT EXERCISED headline names
// every demonstrating check that was not exercised, and says nothing was
// exercised only when no demonstrating check held; no headline names a
// check that held among what failed or idled; and no lead claims what a
// held check vouches for (leadClaims). A story that runs with no fix never
// speaks of a time before or after it.
func TestEveryHeadlineIsTrue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario at its extremes")
	}
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			runs := zeroRuns(t, s)
			for i, run := range judgeAll(s, runs) {
				if run.err != "" {
					t.Errorf("%s %s: %s", s.Name, strings.Join(runs[i], " "), run.err)
					continue
				}
				for _, lie := range headlineLies(run.run.res.Verdict, run.run.res.Checks) {
					t.Errorf("%s %s: %s\n  verdict: %s", s.Name, strings.Join(runs[i], " "), lie, run.run.res.Verdict)
				}
				if b := run.run.body; strings.Contains(b, "with no fix") &&
					(strings.Contains(b, "before the fix") || strings.Contains(b, "after the fix")) {
					t.Errorf("%s %s: the run deploys no fix, yet the report speaks of one", s.Name, strings.Join(runs[i], " "))
				}
			}
		})
	}
}

// leadClaims are the leads (a verdict's text before " — ") that claim what
// checks vouch for: the lead is false when every one of its checks that
// the run recorded held.
var leadClaims = map[string][]string{
	"THE COURSE'S RESULT WAS NOT REPRODUCED": {"the table is the course's algorithm"},
	"THE RETRY POLICY DID NOT HOLD": {"poison tried exactly MaxAttempts", "poison dead-lettered with LastError",
		"each retry waited its backoff (NextAttemptUtc)", "queue drained", "dead-lettering lost no money",
		"no message starved behind the poison"},
}

// headlineLies are what verdict says that its checks contradict, or
// leave out.
func headlineLies(verdict string, checks []report.Check) []string {
	var lies []string
	outcome, text, _ := strings.Cut(verdict, "] ")
	outcome += "]"
	lead, lists, _ := strings.Cut(text, " — ")
	var held, heldDemo, broken, brokenInv, idle []string
	for _, c := range checks {
		switch {
		case c.Outcome == report.OutcomeNotExercised && c.Role == report.RoleDemonstrates:
			idle = append(idle, c.Name)
		case c.Outcome == report.OutcomeNotExercised:
		case c.Passed && c.Role == report.RoleDemonstrates:
			held, heldDemo = append(held, c.Name), append(heldDemo, c.Name)
		case c.Passed:
			held = append(held, c.Name)
		case c.Role == report.RoleInvariant:
			brokenInv = append(brokenInv, c.Name)
		default:
			broken = append(broken, c.Name)
		}
	}
	named := func(list string, names []string) {
		for _, n := range names {
			if !strings.Contains(list, n) {
				lies = append(lies, "the headline leaves out "+n)
			}
		}
	}
	switch outcome {
	case report.VerdictFail, report.VerdictNotReproduced:
		if len(brokenInv) > 0 {
			named(lists, brokenInv)
		} else {
			named(lists, broken)
		}
		if len(broken)+len(brokenInv) == 0 {
			lies = append(lies, "a failing headline with no check broken")
		}
	case report.VerdictNotExercised:
		named(text, idle)
		if strings.HasPrefix(text, "NOTHING HERE EXERCISED") && len(heldDemo) > 0 {
			lies = append(lies, "says nothing was exercised beside what held: "+strings.Join(heldDemo, "; "))
		}
	default:
		if len(broken)+len(brokenInv)+len(idle) > 0 {
			lies = append(lies, "a passing headline beside a check that broke or was not exercised")
		}
		return lies
	}
	// What the headline lists as failed or idle is never a check that held.
	_, failedList, _ := strings.Cut(text, "not exercised: ")
	for _, prefix := range []string{"failed: ", "broken: ", "not reproduced: "} {
		if _, l, ok := strings.Cut(lists, prefix); ok {
			failedList = l
		}
	}
	if outcome == report.VerdictNotExercised && strings.HasPrefix(text, "NOTHING HERE EXERCISED") {
		failedList = strings.TrimPrefix(text, "NOTHING HERE EXERCISED ")
	}
	for _, h := range held {
		if listsName(failedList, h, append(append(broken, brokenInv...), idle...)) {
			lies = append(lies, "names "+h+", which held, among what failed")
		}
	}
	for claim, vouchers := range leadClaims {
		if !strings.HasPrefix(lead, claim) {
			continue
		}
		recorded, allHeld := 0, true
		for _, v := range vouchers {
			if i := slices.IndexFunc(checks, func(c report.Check) bool { return c.Name == v }); i >= 0 {
				recorded++
				allHeld = allHeld && checks[i].Passed
			}
		}
		if recorded > 0 && allHeld {
			lies = append(lies, "the lead "+claim+" is what its checks held")
		}
	}
	return lies
}

// listsName reports whether list names name as an item of its own, not
// only inside the longer name of another check it lists.
func listsName(list, name string, others []string) bool {
	for _, o := range others {
		if o != name && strings.Contains(o, name) {
			list = strings.ReplaceAll(list, o, "")
		}
	}
	return strings.Contains(list, name)
}

// TestHeadlineLies: each way a headline lies is caught, and a true one
// passes.
func TestHeadlineLies(t *testing.T) {
	held := report.Check{Name: "poison tried exactly MaxAttempts", Passed: true, Role: report.RoleDemonstrates, Outcome: report.OutcomeHeld}
	broke := report.Check{Name: "the transient failure recovered", Role: report.RoleDemonstrates, Outcome: report.OutcomeBroken}
	idle := report.Check{Name: "each retry waited its backoff (NextAttemptUtc)", Role: report.RoleDemonstrates, Outcome: report.OutcomeNotExercised}
	table := report.Check{Name: "the table is the course's algorithm", Passed: true, Role: report.RoleInvariant, Outcome: report.OutcomeHeld}
	for _, tc := range []struct {
		verdict string
		checks  []report.Check
		lies    int
	}{
		{report.VerdictFail + " GAVE UP — failed: the transient failure recovered", []report.Check{held, broke}, 0},
		{report.VerdictFail + " THE RETRY POLICY DID NOT HOLD — failed: the transient failure recovered", []report.Check{held, broke}, 1},
		{report.VerdictFail + " THE COURSE'S RESULT WAS NOT REPRODUCED — failed: the transient failure recovered", []report.Check{table, broke}, 1},
		{report.VerdictFail + " BROKE — failed: something else", []report.Check{held, broke}, 1},
		{report.VerdictFail + " BROKE — failed: the transient failure recovered; poison tried exactly MaxAttempts", []report.Check{held, broke}, 1},
		{report.VerdictNotExercised + " NOTHING HERE EXERCISED each retry waited its backoff (NextAttemptUtc): x", []report.Check{held, idle}, 1},
		{report.VerdictNotExercised + " NOT ALL EXERCISED (the rest held) — not exercised: each retry waited its backoff (NextAttemptUtc): x",
			[]report.Check{held, idle}, 0},
		{report.VerdictNotExercised + " NOTHING HERE EXERCISED each retry waited its backoff (NextAttemptUtc): x", []report.Check{table, idle}, 0},
		{report.VerdictPass + " HELD", []report.Check{held, idle}, 1},
		{report.VerdictPass + " HELD", []report.Check{held, table}, 0},
	} {
		if got := headlineLies(tc.verdict, tc.checks); len(got) != tc.lies {
			t.Errorf("headlineLies(%q) = %q, want %d", tc.verdict, got, tc.lies)
		}
	}
}
