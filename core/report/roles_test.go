package report

import (
	"strings"
	"testing"
)

// TestBeforeInvariantsStandApart: a BEFORE's invariants are printed in a
// section of their own, marked HOLDS or BROKEN, and read back with their
// role; a safety property that held never reads REPRODUCED.
func TestBeforeInvariantsStandApart(t *testing.T) {
	r := New("s", Before)
	r.Check("poison retried with no limit", true, "12 attempts")
	r.Invariant("never charged twice", true, "0 double charges")
	r.Checks("ignored")
	r.Verdict("THE FAILURE", "NO FAILURE")
	body := r.Body()
	if !strings.Contains(body, "## "+BeforeChecks+"\n\n  REPRODUCED  poison retried with no limit → 12 attempts\n") {
		t.Errorf("the failure is not under %q:\n%s", BeforeChecks, body)
	}
	if !strings.Contains(body, "## "+BeforeInvariants+"\n\n  HOLDS  never charged twice → 0 double charges\n") {
		t.Errorf("the invariant is not in its own section:\n%s", body)
	}
	if strings.Contains(body, "REPRODUCED  never charged twice") {
		t.Errorf("an invariant that held reads like the failure:\n%s", body)
	}
	got := BodyChecks(body)
	want := []Check{
		{Name: "poison retried with no limit", Passed: true, Detail: "12 attempts", Role: RoleDemonstrates, Outcome: OutcomeHeld},
		{Name: "never charged twice", Passed: true, Detail: "0 double charges", Role: RoleInvariant, Outcome: OutcomeHeld},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("BodyChecks = %+v, want %+v", got, want)
	}
	if !r.Passed() || r.Result().Verdict != VerdictReproduced+" THE FAILURE" {
		t.Errorf("passed %v, verdict %q", r.Passed(), r.Result().Verdict)
	}
}

// TestVerdictFollowsTheChecks: each way a run's checks can end gives its
// own verdict, and only a run whose every check held passes.
func TestVerdictFollowsTheChecks(t *testing.T) {
	cases := []struct {
		name   string
		kind   Kind
		record func(r *Report)
		want   string
		passed bool
	}{
		{"after held", After, func(r *Report) { r.Check("a", true, "1"); r.Invariant("i", true, "0") },
			VerdictPass + " HELD", true},
		{"after broke", After, func(r *Report) { r.Check("a", false, "1"); r.Check("b", true, "2") },
			VerdictFail + " BROKE — failed: a", false},
		{"invariant broke in a before", Before, func(r *Report) { r.Check("a", true, "1"); r.Invariant("i", false, "2") },
			VerdictFail + " BROKE — broken: i", false},
		{"before in part", Before, func(r *Report) { r.Check("a", true, "1"); r.Check("b", false, "2") },
			VerdictNotReproduced + " BROKE — reproduced: a; not reproduced: b", false},
		{"before not at all", Before, func(r *Report) { r.Check("a", false, "1") },
			VerdictNotReproduced + " BROKE — not reproduced: a", false},
		{"not exercised", After, func(r *Report) {
			r.Check("a", true, "1")
			r.NotExercised("b", "no message failed: give --poison-key a key")
		}, VerdictNotExercised + " NOT ALL EXERCISED (the rest held) — not exercised: b: no message failed: give --poison-key a key", false},
		{"a before not all exercised", Before, func(r *Report) {
			r.Check("a", true, "1")
			r.NotExercised("b", "x")
		}, VerdictNotExercised + " NOT ALL EXERCISED (the rest reproduced) — not exercised: b: x", false},
		{"nothing exercised", After, func(r *Report) {
			r.Invariant("i", true, "0")
			r.NotExercised("b", "no message failed: give --poison-key a key")
		}, VerdictNotExercised + " NOTHING HERE EXERCISED b: no message failed: give --poison-key a key", false},
		{"a check's own lead", After, func(r *Report) {
			r.CheckLead("a", false, "1", "GAVE UP TOO SOON")
			r.Check("b", true, "2")
		}, VerdictFail + " GAVE UP TOO SOON — failed: a", false},
		{"a lead not shared by every break", After, func(r *Report) {
			r.CheckLead("a", false, "1", "GAVE UP TOO SOON")
			r.Check("b", false, "2")
		}, VerdictFail + " BROKE — failed: a; b", false},
		{"a break outranks an idle check", After, func(r *Report) { r.NotExercised("b", "x"); r.Check("a", false, "1") },
			VerdictFail + " BROKE — failed: a", false},
		{"no checks", After, func(*Report) {}, VerdictFail + " BROKE", false},
	}
	for _, c := range cases {
		r := New("s", c.kind)
		c.record(r)
		r.Verdict("HELD", "BROKE")
		if got := r.Result().Verdict; got != c.want || r.Passed() != c.passed {
			t.Errorf("%s: verdict %q passed %v, want %q passed %v", c.name, got, r.Passed(), c.want, c.passed)
		}
	}
}

// TestNotExercisedIsNotPassed: a check that judged nothing is marked N/A,
// has not passed, and says so in the JSON.
func TestNotExercisedIsNotPassed(t *testing.T) {
	r := New("s", After)
	r.NotExercised("dead-lettered at the cap", "no message failed")
	r.Checks("Checks")
	c := r.Result().Checks[0]
	if c.Passed || c.Outcome != OutcomeNotExercised || c.Role != RoleDemonstrates {
		t.Errorf("check = %+v", c)
	}
	if !strings.Contains(r.Body(), "  N/A  dead-lettered at the cap → no message failed\n") {
		t.Errorf("body:\n%s", r.Body())
	}
	if got := BodyChecks(r.Body()); len(got) != 1 || got[0] != c {
		t.Errorf("BodyChecks = %+v, want %+v", got, c)
	}
}
