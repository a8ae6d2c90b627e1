package report

import (
	"strings"
	"testing"
)

func demoBody(maxAttempts string, poisonAttempts, calls string, extra bool) string {
	rows := [][]string{
		{"PAY-001", "Processed", "1", maxAttempts},
		{"PAY-003", "DeadLettered", poisonAttempts, maxAttempts},
		{"PAY-004", "Processed", "1", maxAttempts},
	}
	var b strings.Builder
	b.WriteString("Demo\n====\n\n## Timeline\n\n")
	b.WriteString("PAY-001  attempt 1/" + maxAttempts + "  ok\n")
	b.WriteString("PAY-003  attempt 1/" + maxAttempts + "  failed\n")
	if extra {
		b.WriteString("PAY-003  attempt 2/" + maxAttempts + "  failed\n")
	}
	b.WriteString("\n## Messages\n\n")
	b.WriteString(RenderTable([]string{"Key", "Status", "Attempts", "MaxAttempts"}, rows))
	b.WriteString("\n## Metrics\n\n")
	b.WriteString(RenderTable([]string{"Metric", "Value"}, [][]string{{"calls", calls}, {"healthy", "2 / 2"}}))
	b.WriteString("\n## Verdict\n\nVERDICT: ok\n")
	return b.String()
}

// A cell that widens its column re-pads every row as text; compared by
// cells, only the rows that changed show, and lines that differ only where
// a changed flag is printed are counted, not shown.
func TestCellDiffShowsOnlyWhatChanged(t *testing.T) {
	a := demoBody("3", "3", "8", false)
	b := demoBody("5", "5", "10 (a much wider cell)", true)
	d := CellDiff(a, b, []Echo{{Name: "max-attempts", A: "3", B: "5"}})
	for _, want := range []string{
		"+ PAY-003  attempt 2/5  failed\n",
		"~ column MaxAttempts: 3 → 5 in every row (--max-attempts)\n",
		"~ [PAY-003] Attempts 3 → 5\n",
		"~ [calls] Value 8 → 10 (a much wider cell)\n",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("diff lacks %q:\n%s", want, d.Text)
		}
	}
	for _, not := range []string{"PAY-001", "PAY-004", "healthy", "attempt 1/"} {
		if strings.Contains(d.Text, not) {
			t.Errorf("diff shows %q, which did not change but for the flag:\n%s", not, d.Text)
		}
	}
	if d.Echoed != 5 { // two timeline lines, two table rows and the column note
		t.Errorf("Echoed = %d, want 5", d.Echoed)
	}
	// Without knowing the flags, the same lines are shown as changed.
	if d := CellDiff(a, b, nil); !strings.Contains(d.Text, "- PAY-001  attempt 1/3  ok\n") || d.Echoed != 0 {
		t.Errorf("diff without echoes = %+v", d)
	}
	if d := CellDiff(a, a, nil); !d.Same() {
		t.Errorf("CellDiff of one body with itself = %+v, want same", d)
	}
}

func TestBodyChecksAndVerdict(t *testing.T) {
	body := "T\n=\n\nPASS  not in a checks section → x\n\n## Safety checks\n\n" +
		"  PASS  drained → 0 / 0\n  FAIL  bounded → 7 → 5\n\n## Verdict\n\nVERDICT: BROKEN ❌\n"
	got := BodyChecks(body)
	if len(got) != 2 || got[0] != (Check{Name: "drained", Passed: true, Detail: "0 / 0", Role: RoleDemonstrates, Outcome: OutcomeHeld}) ||
		got[1] != (Check{Name: "bounded", Detail: "7 → 5", Role: RoleDemonstrates, Outcome: OutcomeBroken}) {
		t.Errorf("BodyChecks = %+v", got)
	}
	if v := BodyVerdict(body); v != "BROKEN ❌" {
		t.Errorf("BodyVerdict = %q", v)
	}
}

func TestEchoCell(t *testing.T) {
	echoes := []Echo{{Name: "max-attempts", A: "3", B: "5"}}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1/3", "1/5", true},                              // the limit printed beside a count
		{"3/3", "5/5", false},                             // the count changed too
		{"3", "5", false},                                 // a figure equal to the value is a figure
		{"1/3", "2/5", false},                             // another word changed
		{"1/4", "1/6", false},                             // not the flag's values
		{"3 (= MaxAttempts)", "5 (= MaxAttempts)", false}, // a result that equals the flag
		{"attempt 2/3 failed", "attempt 2/5 failed", true},
	} {
		if got := echoCell(c.a, c.b, echoes); got != c.want {
			t.Errorf("echoCell(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
