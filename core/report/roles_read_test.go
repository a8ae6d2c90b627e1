package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// rolesReport writes a report file of kind with a failure, an invariant and,
// when idle, a check that was not exercised, as the lab writes one: its body
// from Report, its header from the body's result.
func rolesReport(kind Kind, idle bool) string {
	r := New("ordered-demo", kind)
	r.Title("Roles demo")
	r.Check("later messages applied", true, "3 applied")
	r.Invariant("never applied twice", true, "0 twice")
	if idle {
		r.NotExercised("parked behind the failure", "no message failed: give --failing-message a type")
	}
	r.Checks("Safety checks")
	r.Verdict("THE FAILURE", "NO FAILURE")
	res := r.Result()
	rec := &Record{Scenario: res.Scenario, Kind: kind, Version: "0.1.0", Checks: res.Checks,
		Verdict: res.Verdict, Passed: res.Passed, ExitCode: exitFor(res.Passed)}
	return Header(Meta{Started: time.Unix(1764493200, 0), Command: "x", Database: "db", Version: "0.1.0", Record: rec}) +
		r.Body()
}

// TestRolesReadBackFromAReport: a BEFORE's body gives back each check's
// role and outcome from its marks, its header agrees with it, and an edit
// that turns an N/A into a PASS or a HOLDS into a REPRODUCED is caught.
func TestRolesReadBackFromAReport(t *testing.T) {
	text := rolesReport(Before, true)
	doc := mustParse(t, text)
	if d := Disagreements(doc); len(d) != 0 {
		t.Fatalf("a report as written disagrees with itself: %q", d)
	}
	got := BodyChecks(doc.Body)
	// As printed: the failures first, then the invariants in their section.
	want := []Outcome{OutcomeHeld, OutcomeNotExercised, OutcomeHeld}
	roles := []Role{RoleDemonstrates, RoleDemonstrates, RoleInvariant}
	for i, c := range got {
		if i >= len(want) || c.Outcome != want[i] || c.Role != roles[i] || c != doc.Info.Record.Checks[i] {
			t.Errorf("check %d read back %+v, recorded %+v", i, c, doc.Info.Record.Checks[i])
		}
	}
	if len(got) != 3 || KindOf(doc) != Before || KindOf(Doc{Body: doc.Body}) != Before {
		t.Errorf("%d checks, kind %s (%s from the body alone)", len(got), KindOf(doc), KindOf(Doc{Body: doc.Body}))
	}
	for _, c := range []struct{ old, new, want string }{
		{"  N/A  parked", "  REPRODUCED  parked", `check "parked behind the failure" is not exercised in the header, held in the body`},
		{"  HOLDS  never", "  REPRODUCED  never", `check "never applied twice" is an invariant in the header, a demonstrating check in the body`},
		{`"role":"invariant"`, `"role":"demonstrates"`, `check "never applied twice" is a demonstrating check in the header, an invariant in the body`},
	} {
		edited := strings.Replace(text, c.old, c.new, 1)
		if edited == text {
			t.Fatalf("%q is not in the report:\n%s", c.old, text)
		}
		if d := Disagreements(mustParse(t, edited)); !slices.Contains(d, c.want) {
			t.Errorf("%q → %q: Disagreements = %q, want %q among them", c.old, c.new, d, c.want)
		}
	}
	// A record written before checks had roles reads as demonstrating
	// checks that held or broke, and agrees with its body.
	old := strings.NewReplacer(`,"role":"demonstrates","outcome":"held"`, "").Replace(demoReport("V ok", nil))
	if c := mustParse(t, old).Info.Record.Checks[0]; c.Role != RoleDemonstrates || c.Outcome != OutcomeHeld {
		t.Errorf("an older record's check reads %+v", c)
	}
}

// TestIndexTellsNotExercisedApart: the index counts a run's N/A checks,
// marks its verdict apart from a failure's, and summary.json names the
// scenario under not_exercised as well as under failed.
func TestIndexTellsNotExercisedApart(t *testing.T) {
	dir := t.TempDir()
	group, _ := PrepareDir(dir, "ordered")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(group, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Ordered-Demo-RunReport-20251130-090000.txt", rolesReport(Before, true))
	write("Ordered-Other-RunReport-20251130-090000.txt",
		strings.ReplaceAll(rolesReport(Before, false), "ordered-demo", "ordered-other"))
	sc, err := RebuildIndex(dir, time.Unix(1764493200, 0), "0.1.0", Course{Groups: map[string]bool{"ordered": true}})
	if err != nil {
		t.Fatal(err)
	}
	var idle Entry
	for _, e := range sc.Entries {
		if e.Scenario == "ordered-demo" {
			idle = e
		}
	}
	if idle.ChecksPassed != 2 || idle.ChecksTotal != 3 || idle.ChecksNotExercised != 1 || idle.ExitCode != 1 ||
		!NotExercisedVerdict(idle.Verdict) {
		t.Errorf("the not-exercised run's entry: %+v", idle)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	var sum Summary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Passed || !slices.Equal(sum.Failed, []string{"ordered-demo"}) || !slices.Equal(sum.NotExercised, []string{"ordered-demo"}) {
		t.Errorf("summary: passed %v, failed %q, not exercised %q", sum.Passed, sum.Failed, sum.NotExercised)
	}
	page, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	for _, want := range []string{`<td class="n idle">2/3 (1 N/A)</td>`, `<td class="n pass">2/2</td>`,
		"1 not exercised: ordered-demo"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	twin, _ := os.ReadFile(filepath.Join(dir, idle.HTML))
	for _, want := range []string{`<p class="verdict idle">VERDICT: ` + VerdictNotExercised,
		`<span class="idle">N/A</span> parked behind the failure`, `<span class="pass">HOLDS</span> never applied twice`} {
		if !strings.Contains(string(twin), want) {
			t.Errorf("the HTML twin lacks %q", want)
		}
	}
	wellFormed(t, string(twin), "span", "class")
}

// TestTwinOfAnOlderBeforeKeepsItsMarks: a report written before headers
// carried a record has no kind; its twin reads the kind from its body, so a
// BEFORE's reproduced failure is not shown as PASS.
func TestTwinOfAnOlderBeforeKeepsItsMarks(t *testing.T) {
	_, body, _ := SplitHeader(rolesReport(Before, false))
	page := ReportHTML(Entry{Scenario: "ordered-demo"}, body, "", nil, nil)
	for _, want := range []string{`<span class="pass">REPRODUCED</span> later messages applied`,
		`<span class="pass">HOLDS</span> never applied twice`} {
		if !strings.Contains(page, want) {
			t.Errorf("the twin lacks %q", want)
		}
	}
	if strings.Contains(page, `<span class="pass">PASS</span>`) {
		t.Error("the twin marks a BEFORE's check PASS")
	}
}
