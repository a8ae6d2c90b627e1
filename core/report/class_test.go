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

// A header edited by hand (its exit, verdict, checks line or record) is
// told from one the lab wrote: Disagreements names what disagrees.
func TestDisagreementsCatchAnEditedHeader(t *testing.T) {
	text := demoReport("V ok", nil)
	doc, _ := Parse(text)
	if d := Disagreements(doc); len(d) != 0 {
		t.Fatalf("a report as written disagrees with itself: %q", d)
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"exit line", "exit:     0\n", "exit:     1\n", "the header's exit line reads 1, its record 0"},
		{"verdict line", "verdict:  V ok\n", "verdict:  PASS\n", `the header's verdict line reads "PASS", its record "V ok"`},
		{"checks line", "checks:   1/1 passed\n", "checks:   6/6 passed\n", `the header's checks line reads "6/6 passed", its record "1/1 passed"`},
		{"record's check", `"passed":true,"detail":"0 left"`, `"passed":false,"detail":"0 left"`, `check "drained" failed in the header, passed in the body`},
		{"body's check", "  PASS  drained → 0 left", "  FAIL  drained → 0 left", `check "drained" passed in the header, failed in the body`},
		{"body's verdict", "VERDICT: V ok", "VERDICT: V broken", `the header's verdict is "V ok", the body's "V broken"`},
	} {
		edited := strings.Replace(text, c.old, c.new, 1)
		if edited == text {
			t.Fatalf("%s: %q is not in the report", c.name, c.old)
		}
		doc, _ := Parse(edited)
		if d := Disagreements(doc); !slices.Contains(d, c.want) {
			t.Errorf("%s edited: Disagreements = %q, want %q among them", c.name, d, c.want)
		}
	}
}

// The lab's tables have no rule between rows: a label too wide for its
// column continues on the next line. Read back, it is one row, so two
// tables that wrap the same rows differently compare equal.
func TestWrappedLabelIsOneRow(t *testing.T) {
	label := "worker-A's late write at 09:00:45.000Z"
	narrow := RenderTable([]string{"Metric", "BEFORE", "AFTER"}, [][]string{
		{label, "APPLIED over Delivered", strings.Repeat("x", 40)}, {"final row", "Delivered", "Delivered"}})
	wide := RenderTable([]string{"Metric", "BEFORE", "AFTER"}, [][]string{
		{label, "APPLIED over Delivered", "REFUSED"}, {"final row", "Delivered", "Delivered"}})
	if !strings.Contains(narrow, "│ 09:00:45.000Z") && !strings.Contains(narrow, "09:00:45.000Z ") {
		t.Fatalf("the label did not wrap in the narrow table:\n%s", narrow)
	}
	for _, tab := range []string{narrow, wide} {
		items := Items(tab)
		if len(items) != 1 || items[0].Table == nil || len(items[0].Table.Rows) != 2 || items[0].Table.Rows[0][0] != label {
			t.Errorf("read back as %+v, want 2 rows, the first labelled %q:\n%s", items, label, tab)
		}
	}
	d := CellDiff("## T\n\n"+narrow, "## T\n\n"+wide, nil)
	if strings.Contains(d.Text, "\n- ") || strings.Contains(d.Text, "\n+ ") || !strings.Contains(d.Text, "~ ["+label+"] AFTER") {
		t.Errorf("a wrapped row shows as removed and added, or its change is missing:\n%s", d.Text)
	}
}

// A changed flag's value is folded only where it is printed in its place.
func TestEchoOnlyInPlace(t *testing.T) {
	echoes := []Echo{{Name: "max-attempts", A: "4", B: "5"}}
	for _, c := range []struct {
		a, b   string
		folded bool
	}{
		{"PAY-001  attempt 1/4  ok", "PAY-001  attempt 1/5  ok", true},
		{"Policy    MaxAttempts 4; backoff", "Policy    MaxAttempts 5; backoff", true},
		{"run with --max-attempts=4", "run with --max-attempts=5", true},
		{"  PASS  tx ids only → 4 Paid w/ id", "  PASS  tx ids only → 5 Paid w/ id", false},
		{"  PASS  poison tried exactly MaxAttempts → 4 / 4", "  PASS  poison tried exactly MaxAttempts → 5 / 5", false},
		{"PAY-003  attempt 4/4  FAILED", "PAY-003  attempt 5/5  FAILED", false},
	} {
		d := CellDiff("## S\n\n"+c.a+"\n", "## S\n\n"+c.b+"\n", echoes)
		if folded := d.Text == "" && d.Echoed == 1; folded != c.folded {
			t.Errorf("%q → %q: folded %v, want %v (%+v)", c.a, c.b, folded, c.folded, d)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A class folder as an instructor collects it: per-student folders, a
// nested one, a renamed file, notes, a body without its header, a report
// cut short, a symbolic link, and an edited header. Every report is found,
// every other file is listed with why, and nothing the lab wrote is.
func TestScanFindsEveryReportAndListsEverySkip(t *testing.T) {
	dir := t.TempDir()
	ok := demoReport("V ok", nil)
	failing := strings.NewReplacer("PASS  drained", "FAIL  drained", `"passed":true`, `"passed":false`,
		"checks:   1/1", "checks:   0/1", "exit:     0", "exit:     1", `"exit_code":0`, `"exit_code":1`).Replace(ok)
	if d := Disagreements(mustParse(t, failing)); len(d) != 0 {
		t.Fatalf("the failing fixture disagrees with itself: %q", d)
	}
	writeFile(t, filepath.Join(dir, "alice", "session-16", "Session-16-Demo-RunReport-20260116-090000.txt"), ok)
	writeFile(t, filepath.Join(dir, "alice", "session-16", "Session-16-Demo-RunReport-20260116-090000-attempts.svg"), "<svg/>")
	writeFile(t, filepath.Join(dir, "bob", "deep", "er", "run.txt"), failing)
	writeFile(t, filepath.Join(dir, "carol", "my day 16 report"), ok)
	// Its figure kept the lab's name; its title names the run.
	writeFile(t, filepath.Join(dir, "carol", "Session-16-Demo-RunReport-20260116-090001-attempts.svg"),
		"<svg><title>session-16-demo — Attempts</title></svg>")
	writeFile(t, filepath.Join(dir, "dave", "r.txt"), strings.Replace(ok, "exit:     0", "exit:     1", 1))
	writeFile(t, filepath.Join(dir, "dave", "notes.txt"), "notes")
	_, body, _ := SplitHeader(ok)
	writeFile(t, filepath.Join(dir, "erin", "body.txt"), body)
	writeFile(t, filepath.Join(dir, "erin", "cut.txt"), ok[:len(HeaderStart)+40])
	writeFile(t, filepath.Join(dir, "erin", "orphan.svg"), "<svg/>")
	writeFile(t, filepath.Join(dir, "erin", "reports", IndexFile), "<html/>")
	writeFile(t, filepath.Join(dir, "erin", "reports", TwinDir, "x", "y.html"), "<html/>")
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref")
	os.Symlink(filepath.Join(dir, "carol", "my day 16 report"), filepath.Join(dir, "erin", "link.txt"))

	sc, err := ScanDir(dir, Course{Groups: map[string]bool{"session-16": true}})
	if err != nil {
		t.Fatal(err)
	}
	var reports []string
	students := map[string]string{}
	for _, e := range sc.Entries {
		reports = append(reports, e.Report)
		students[e.Report] = e.Student
	}
	slices.Sort(reports)
	want := []string{"alice/session-16/Session-16-Demo-RunReport-20260116-090000.txt", "bob/deep/er/run.txt",
		"carol/my day 16 report", "dave/r.txt"}
	if !slices.Equal(reports, want) {
		t.Errorf("reports %q, want %q", reports, want)
	}
	if students["bob/deep/er/run.txt"] != "bob" || students[want[0]] != "alice" {
		t.Errorf("students %v", students)
	}
	for _, e := range sc.Entries {
		if e.Report == "carol/my day 16 report" &&
			!slices.Equal(e.Figures, []string{"carol/Session-16-Demo-RunReport-20260116-090001-attempts.svg"}) {
			t.Errorf("the renamed report's figures are %q, want the one its title names", e.Figures)
		}
	}
	skipped := map[string]string{}
	for _, s := range sc.Skipped {
		skipped[s.Path] = s.Reason
	}
	for path, reason := range map[string]string{
		"dave/notes.txt":  "not an outboxlab report",
		"erin/body.txt":   "without its run-metadata header",
		"erin/cut.txt":    "cut short",
		"erin/orphan.svg": "no report beside it",
		"erin/link.txt":   "symbolic link",
	} {
		if !strings.Contains(skipped[path], reason) {
			t.Errorf("skip of %s: %q, want it to say %q", path, skipped[path], reason)
		}
	}
	if len(sc.Skipped) != 5 {
		t.Errorf("skipped %d files, want the 5 above: %+v", len(sc.Skipped), sc.Skipped)
	}
	sum := summarize(sc, Course{}, time.Now(), "0.1.0")
	js, _ := json.Marshal(sum)
	if sum.Passed || !slices.Contains(sum.FailedReports, "bob/deep/er/run.txt") ||
		!slices.Equal(sum.HeaderDisagrees, []string{"dave/r.txt"}) || !strings.Contains(sum.Summarises, "every report") {
		t.Errorf("summary over a failing and an edited report: %s", js)
	}
	for _, e := range sc.Entries {
		if e.Report == "dave/r.txt" && (e.ExitCode != 0 || len(e.Disagrees) == 0) {
			t.Errorf("the edited report's entry is %+v: want the body's exit 0 and the disagreement", e)
		}
	}
}

func mustParse(t *testing.T, text string) Doc {
	t.Helper()
	doc, ok := Parse(text)
	if !ok {
		t.Fatal("not a report")
	}
	return doc
}

// Runs started in the same second sort newest first: by their -N suffix,
// else by when the file was written.
func TestNewestFirstWithinASecond(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "session-16")
	started := time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC)
	var paths []string
	for i := range 3 {
		p, err := Write(mustDir(t, g), "session-16-demo", started, []byte(demoReportAt(started, i)))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		// Copied by hand, the later runs' files look older: the suffix decides.
		at := time.Now().Add(-time.Duration(i) * time.Minute)
		os.Chtimes(p, at, at)
	}
	// A later file of another name in the same second: newer by its time.
	other := filepath.Join(g, "Session-16-Other-RunReport-20260116-090000.txt")
	writeFile(t, other, demoReportAt(started, 9))
	future := time.Now().Add(time.Hour)
	os.Chtimes(other, future, future)
	sc, err := ScanDir(dir, Course{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range sc.Entries {
		got = append(got, filepath.Base(e.Report))
	}
	want := []string{filepath.Base(other), filepath.Base(paths[2]), filepath.Base(paths[1]), filepath.Base(paths[0])}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want newest first %q", got, want)
	}
}

func mustDir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func demoReportAt(started time.Time, n int) string {
	text := demoReport("V ok", nil)
	i := strings.Index(text, "started:  ")
	j := strings.Index(text[i:], "\n")
	return text[:i] + "started:  " + started.Format(time.RFC3339) + text[i+j:] + strings.Repeat("\n", n)
}

// Every table in every golden body reads back into rows that render to
// the very same lines: a row split in two, or two rows joined (a wrapped
// label mistaken for a new row, or the other way round), renders otherwise.
func TestGoldenTablesReadBackWhole(t *testing.T) {
	goldens, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.txt"))
	if len(goldens) == 0 {
		t.Fatal("no golden bodies found")
	}
	tables, skipped := 0, 0
	for _, g := range goldens {
		raw, _ := os.ReadFile(g)
		for _, it := range Items(string(raw)) {
			if it.Table == nil {
				continue
			}
			if explicitBreaks(it.Table) {
				// Cells holding their own line breaks (a stack of values in
				// one cell) read back joined by spaces and render otherwise.
				skipped++
				continue
			}
			tables++
			want := strings.Join(it.Table.Lines, "\n") + "\n"
			if got := RenderTable(it.Table.Header, it.Table.Rows); got != want {
				t.Errorf("%s: a table read back as %d rows renders otherwise:\n%s\nwant\n%s",
					filepath.Base(g), len(it.Table.Rows), got, want)
			}
		}
	}
	t.Logf("%d tables in %d golden bodies read back whole; %d with cells of several lines left out", tables, len(goldens), skipped)
	if tables < 60 {
		t.Errorf("only %d tables checked", tables)
	}
}

// explicitBreaks reports whether a table has a cell broken where a wrap
// would not have broken it: a continuation line whose text would have
// fitted on the line above.
func explicitBreaks(tab *Table) bool {
	var above []string
	for _, line := range tab.Lines[3:] {
		if !strings.HasPrefix(line, "│") {
			continue
		}
		cells := splitCells(line)
		if above != nil && cells[0] == "" {
			for i := range min(len(cells), len(above), len(tab.widths)) {
				first, _, _ := strings.Cut(cells[i], " ")
				if cells[i] != "" && above[i] != "" && Width(above[i])+1+Width(first) <= tab.widths[i] {
					return true
				}
			}
		}
		above = cells
	}
	return false
}
