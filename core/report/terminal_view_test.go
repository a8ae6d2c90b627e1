package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type sized struct {
	bytes.Buffer
	columns int
}

func (s *sized) Columns() int { return s.columns }

func TestTerminalWidth(t *testing.T) {
	for _, tt := range []struct {
		columns string
		w       any
		want    int
	}{
		{"", &bytes.Buffer{}, 100}, // a pipe or a file: the report's layout
		{"90", &bytes.Buffer{}, 90},
		{" 85 ", &bytes.Buffer{}, 85},
		{"40", &bytes.Buffer{}, 80}, // clamped to MinWidth
		{"250", &bytes.Buffer{}, 100},
		{"wide", &bytes.Buffer{}, 100}, // not a number: as if unset
		{"-3", &bytes.Buffer{}, 100},
		{"90", &sized{columns: 84}, 84}, // the writer's own width first
		{"", &sized{columns: 30}, 80},
	} {
		t.Setenv("COLUMNS", tt.columns)
		if got := TerminalWidth(tt.w.(interface{ Write([]byte) (int, error) })); got != tt.want {
			t.Errorf("COLUMNS=%q, %T: TerminalWidth = %d, want %d", tt.columns, tt.w, got, tt.want)
		}
	}
}

// goldens returns every golden report body of the lab.
func goldens(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.txt"))
	if len(files) < 10 {
		t.Fatalf("found %d golden bodies", len(files))
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// prose is the text of a body's lines, tables and underlines left out,
// without its spaces: what a reflow must keep whole and in order, wherever
// it breaks the lines (a word wider than a line is cut).
func prose(body string) string {
	var text strings.Builder
	for _, it := range Items(body) {
		if it.Table == nil && strings.Trim(it.Line, "=") != "" { // an underline's width changes
			text.WriteString(strings.Join(strings.Fields(it.Line), "") + "\n")
		}
	}
	return strings.Join(strings.Fields(text.String()), "")
}

// TestViewAt80KeepsEveryGoldenWhole lays every golden body out for 80
// columns and requires every line to fit, the text's words in the same
// order, every table's cells, checks and verdict to read back the same.
func TestViewAt80KeepsEveryGoldenWhole(t *testing.T) {
	for name, body := range goldens(t) {
		view := View(body, 80)
		for _, l := range strings.Split(view, "\n") {
			if Width(l) > 80 {
				t.Errorf("%s: %d columns: %s", name, Width(l), l)
			}
		}
		// A table too wide to wrap between words is stacked: its rows are
		// text, each field after its header's name.
		kept, stackedText := splitStacked(tables(body), tables(view))
		if got, want := prose(view), prose(withStacked(body, stackedText)); got != want {
			t.Errorf("%s: the view's text differs from the body's", name)
		}
		if got := tables(view); !slices.EqualFunc(got, kept, sameTable) {
			t.Errorf("%s: the view's tables read back differently", name)
		}
		if got, want := BodyChecks(view), BodyChecks(body); !slices.Equal(got, want) {
			t.Errorf("%s: checks read back from the view:\n%v\nwant\n%v", name, got, want)
		}
		if got, want := BodyVerdict(view), BodyVerdict(body); got != want {
			t.Errorf("%s: verdict read back from the view %q, want %q", name, got, want)
		}
		if View(body, 100) != body {
			t.Errorf("%s: the view at 100 columns is not the body", name)
		}
	}
}

// splitStacked matches the view's tables, in order, with the body's: it
// returns the body's tables the view shows as tables, and, for each body
// table the view stacked, its text as stacked (the first column's header and
// cell, then each other field's header and cell, "—" for an empty one).
func splitStacked(body, view []*Table) (kept []*Table, stacked map[int]string) {
	stacked = map[int]string{}
	for n, t := range body {
		if len(view) > len(kept) && sameTable(t, view[len(kept)]) {
			kept = append(kept, t)
			continue
		}
		var text strings.Builder
		for _, row := range t.Rows {
			for i, c := range row {
				text.WriteString(t.Header[i] + " " + Dash(c) + "\n")
			}
		}
		stacked[n] = text.String()
	}
	return kept, stacked
}

// withStacked is body with each table in stacked (by its place among the
// body's tables) written as its text.
func withStacked(body string, stacked map[int]string) string {
	var out []string
	n := 0
	for _, it := range Items(body) {
		switch {
		case it.Table == nil:
			out = append(out, it.Line)
		default:
			if text, ok := stacked[n]; ok {
				out = append(out, text)
			}
			n++
		}
	}
	return strings.Join(out, "\n")
}

func tables(body string) []*Table {
	var out []*Table
	for _, it := range Items(body) {
		if it.Table != nil {
			out = append(out, it.Table)
		}
	}
	return out
}

// sameTable reports whether two tables hold the same text, whatever lines
// and rows it is spread over: a wrapped row of a ruled table reads back as
// several rows, and a word cut across lines as two.
func sameTable(a, b *Table) bool {
	chars := func(t *Table) string {
		var all []rune
		for _, row := range append([][]string{t.Header}, t.Rows...) {
			for _, c := range row {
				all = append(all, []rune(strings.Join(strings.Fields(c), ""))...)
			}
		}
		slices.Sort(all)
		return string(all)
	}
	return chars(a) == chars(b)
}

func TestViewDropsCompareMarkers(t *testing.T) {
	body := "T\n=\n\n## Schema " + DatabaseMarker + "\n\nEngine  one file " + DatabaseMarker + "\n2.5 msg/s " + MeasuredMarker + "\n"
	want := "T\n=\n\n## Schema\n\nEngine  one file\n2.5 msg/s\n"
	for _, width := range []int{80, 100} {
		if got := View(body, width); got != want {
			t.Errorf("View(%d) = %q, want %q", width, got, want)
		}
	}
}

func TestViewStacksATableTooWideToWrap(t *testing.T) {
	// Nine columns fit 100 columns as they are, but not 80 with their
	// words whole.
	header := []string{"Key", "Column 1", "Column 2", "Column 3", "Column 4", "Column 5", "Column 6", "Column 7", "Column 8"}
	row := []string{"PAY-001", "Pending", "Dead", "PRV-TX-1", "Paid", "a value", "another", "and more", "last one"}
	body := RenderTable(header, [][]string{row})
	if widest(body) > MaxWidth || strings.Count(body, "\n") != 5 {
		t.Fatalf("the body's table does not fit 100 columns unwrapped:\n%s", body)
	}
	want := "Key PAY-001\n  Column 1  Pending\n  Column 2  Dead\n"
	view := View(body, 80)
	if !strings.HasPrefix(view, want) || strings.Contains(view, "┌") {
		t.Errorf("view:\n%s\nwant it to start\n%s", view, want)
	}
	if !strings.HasSuffix(view, "  Column 8  last one\n") {
		t.Errorf("view:\n%s\nwant it to end with the last cell", view)
	}
}

// TestBriefKeepsTheStory reads every golden body's brief form: its title,
// at most two setup lines, and exactly its timeline, checks and verdict
// sections, each whole and in order; the checks and verdict read back the
// same as the body's.
func TestBriefKeepsTheStory(t *testing.T) {
	for name, body := range goldens(t) {
		brief := Brief(body)
		lines := strings.Split(body, "\n")
		if !strings.HasPrefix(brief, lines[0]+"\n"+lines[1]+"\n") {
			t.Errorf("%s: the brief does not start with the title:\n%s", name, brief)
		}
		setup, _, _ := strings.Cut(strings.Join(strings.Split(brief, "\n")[2:], "\n"), "\n## ")
		if n := strings.Count(strings.TrimSpace(setup), "\n") + 1; strings.TrimSpace(setup) == "" || n > 2 {
			t.Errorf("%s: %d setup lines in the brief, want 1 or 2:\n%s", name, n, setup)
		}
		var want []string
		for _, sec := range strings.Split(body, "\n## ")[1:] {
			title, _, _ := strings.Cut(sec, "\n")
			if briefSection(title) {
				want = append(want, strings.TrimRight(sec, "\n"))
			}
			if strings.Contains(title, "Per-message") && strings.Contains(brief, "## "+title+"\n") {
				t.Errorf("%s: the brief keeps %q", name, title)
			}
		}
		var got []string
		for _, sec := range strings.Split(brief, "\n## ")[1:] {
			got = append(got, strings.TrimRight(sec, "\n"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the brief's sections differ from the body's timeline, checks and verdict:\n%s",
				name, Diff("body", strings.Join(want, "\n## "), "brief", strings.Join(got, "\n## ")))
		}
		if !slices.Equal(BodyChecks(brief), BodyChecks(body)) || BodyVerdict(brief) != BodyVerdict(body) || BodyVerdict(body) == "" {
			t.Errorf("%s: the brief's checks or verdict read back differently", name)
		}
	}
}
