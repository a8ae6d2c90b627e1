package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Each kind and outcome has its own check marks, heading and verdict symbol,
// so a BEFORE that reproduced its failure never reads like an AFTER that
// failed, without colour and in a report file.
func TestOutcomeMarks(t *testing.T) {
	cases := []struct {
		kind        Kind
		passed      bool
		heading     string
		mark        string
		verdictLine string
		wantPassed  bool
	}{
		{After, true, "## Safety checks", "  PASS  c → d", "VERDICT: [PASS ✅] HELD", true},
		{After, false, "## Safety checks", "  FAIL  c → d", "VERDICT: [FAIL ❌] BROKEN — failed: c", false},
		{Experiment, true, "## Safety checks", "  PASS  c → d", "VERDICT: [PASS ✅] HELD", true},
		{Before, true, "## " + BeforeChecks, "  REPRODUCED  c → d", "VERDICT: [REPRODUCED 🧪] HELD", true},
		{Before, false, "## " + BeforeChecks, "  NOT REPRODUCED  c → d", "VERDICT: [NOT REPRODUCED ❓] BROKEN — not reproduced: c", false},
	}
	for _, c := range cases {
		r := New("demo", c.kind)
		r.Check("c", c.passed, "d")
		r.Checks("Safety checks")
		r.Verdict("HELD ✅", "BROKEN ⚠️")
		body := r.Body()
		for _, want := range []string{c.heading + "\n", c.mark + "\n", c.verdictLine + "\n"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s passed=%v: body lacks %q:\n%s", c.kind, c.passed, want, body)
			}
		}
		// What compare and the index read back agrees with what was written.
		checks := BodyChecks(body)
		if len(checks) != 1 || checks[0].Passed != c.passed {
			t.Errorf("%s passed=%v: BodyChecks = %+v", c.kind, c.passed, checks)
		}
		if got := BodyVerdict(body); "VERDICT: "+got != c.verdictLine {
			t.Errorf("%s passed=%v: BodyVerdict = %q", c.kind, c.passed, got)
		}
		if r.Passed() != c.wantPassed {
			t.Errorf("%s passed=%v: Passed() = %v", c.kind, c.passed, r.Passed())
		}
	}
}

// A table wider than MaxWidth wraps its widest cells inside their cells, at
// spaces, and keeps every word; a narrow table is left as it is.
func TestTablesFitMaxWidth(t *testing.T) {
	long := strings.Repeat("provider said the card was declined permanently ", 4)
	header := []string{"Id", "Key", "Status", "LastError"}
	rows := [][]string{{"1", "PAY-003", "DeadLettered", long}, {"2", "PAY-004", "Processed", "-"}}
	out := RenderTable(header, rows)
	if w := widest(out); w > MaxWidth {
		t.Fatalf("widest line %d > %d:\n%s", w, MaxWidth, out)
	}
	if !strings.Contains(out, "│ PAY-003 │ DeadLettered │ provider said the card was declined") {
		t.Errorf("short columns or the start of the long cell changed:\n%s", out)
	}
	var words []string
	for _, l := range strings.Split(out, "\n") {
		if cells := strings.Split(l, "│"); len(cells) == 6 {
			words = append(words, strings.Fields(cells[4])...)
		}
	}
	if got, want := strings.Join(words, " "), "LastError "+strings.TrimSpace(long)+" -"; got != want {
		t.Errorf("wrapped cell lost or reordered words:\ngot  %q\nwant %q", got, want)
	}
	narrow := RenderTable([]string{"a", "b"}, [][]string{{"1", "two words"}})
	if strings.Count(narrow, "\n") != 5 {
		t.Errorf("a narrow table was changed:\n%s", narrow)
	}
	// A word wider than its column is cut, never left to widen the table.
	url := "https://example.com/" + strings.Repeat("x", 150)
	out = RenderTable([]string{"Alert"}, [][]string{{url}})
	if w := widest(out); w > MaxWidth {
		t.Errorf("widest line %d > %d:\n%s", w, MaxWidth, out)
	}
}

func TestDropSection(t *testing.T) {
	r := New("demo", After)
	r.Title("T")
	r.Section(SchemaTitle)
	r.Line("CREATE TABLE x (a);")
	r.Section("Timeline")
	r.Line("10:00 claimed")
	r.DropSection(SchemaTitle)
	if got, want := r.Body(), "T\n=\n\n## Timeline\n\n10:00 claimed\n"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
	r.DropSection("Timeline") // the last section goes to the end
	if got, want := r.Body(), "T\n=\n"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
	r.DropSection("absent")
	if got, want := r.Body(), "T\n=\n"; got != want {
		t.Errorf("dropping an absent section changed the body to %q", got)
	}
}

// A table that fits once its columns wrap between words is never cut inside
// a word: an id like PRV-TX-0001 stays whole (the Day 13 per-message table).
func TestTablesWrapBetweenWordsFirst(t *testing.T) {
	header := []string{"Key", "Life", "Charge answer", "Provider took the charge as", "Pending work kept in",
		"Status checks", "Payment status", "Provider tx id"}
	var rows [][]string
	for i := 1; i <= 6; i++ {
		tx := fmt.Sprintf("PRV-TX-%04d", i)
		rows = append(rows, []string{fmt.Sprintf("PAY-%03d", i), "1", "TIMED OUT", "Paid " + tx, "memory of life 1", "0",
			"PendingConfirmation", tx})
	}
	out := RenderTable(header, rows)
	if w := widest(out); w > MaxWidth {
		t.Fatalf("widest line %d > %d:\n%s", w, MaxWidth, out)
	}
	for _, word := range []string{"PRV-TX-0001", "PRV-TX-0006", "PendingConfirmation", "answer"} {
		if n := strings.Count(out, word); n < 1 {
			t.Errorf("%q was cut inside the word:\n%s", word, out)
		}
	}
	if n := strings.Count(out, "PRV-TX-0003"); n != 2 {
		t.Errorf("PRV-TX-0003 appears whole %d times, want 2 (two columns):\n%s", n, out)
	}
}

// A table wrapped to fit reads back with its cells whole: compare matches
// rows by their cells, not by the lines a wrapped cell takes.
func TestWrappedTableReadsBackWhole(t *testing.T) {
	header := []string{"Metric", "BEFORE (naive)", "AFTER (policy)"}
	rows := [][]string{
		{"Retries with backoff", strings.Repeat("0 (none) ", 5) + "end", "4 (200 ms, 400 ms, 800 ms, 1600 ms) " + strings.Repeat("and more ", 4)},
		{"Poison attempts", "10", "3 (= MaxAttempts)"},
	}
	out := RenderTable(header, rows)
	if widest(out) > MaxWidth || strings.Count(out, "\n") <= 6 {
		t.Fatalf("the table did not wrap to fit:\n%s", out)
	}
	items := Items(out)
	if len(items) != 1 || items[0].Table == nil {
		t.Fatalf("Items = %+v, want one table", items)
	}
	tb := items[0].Table
	if !slices.Equal(tb.Header, header) || len(tb.Rows) != 2 {
		t.Fatalf("read back header %q and %d rows:\n%s", tb.Header, len(tb.Rows), out)
	}
	for i, row := range rows {
		for j, cell := range row {
			if got := tb.Rows[i][j]; got != strings.Join(strings.Fields(cell), " ") {
				t.Errorf("row %d cell %d = %q, want %q", i, j, got, cell)
			}
		}
	}
}
