package gradebook

import (
	"bytes"
	"encoding/csv"
	"os"
	"strings"
	"testing"
)

func roster(t *testing.T) Roster {
	t.Helper()
	f, err := os.Open("testdata/roster.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadRoster(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReadRoster: Canvas's export (a byte-order mark, a Points Possible
// row, assignment columns) gives its students; a folder finds its student
// by SIS login, user id, id or name in any letter case.
func TestReadRoster(t *testing.T) {
	r := roster(t)
	if len(r) != 3 || r[0] != (Student{"Doe, Alice", "101", "S101", "alice", "Sec A"}) {
		t.Fatalf("roster %+v", r)
	}
	for folder, want := range map[string]string{"alice": "Doe, Alice", "S102": "Roe, Bob", "103": "Poe, Zed",
		"ZED@UNI.EXAMPLE": "Poe, Zed", "doe, alice": "Doe, Alice"} {
		if s, ok := r.Find(folder); !ok || s.Name != want {
			t.Errorf("Find(%q) = %+v, %v; want %s", folder, s, ok, want)
		}
	}
	if _, ok := r.Find("mallory"); ok {
		t.Error("a folder not on the roster was found")
	}
	if _, err := ReadRoster(strings.NewReader("Name,Email\nA,a@x\n")); err == nil || !strings.Contains(err.Error(), "no Student column") {
		t.Errorf("a roster without Student: %v", err)
	}
}

// TestCanvas field by field: the five identity columns, each assignment
// named with its id, the Points Possible row, a blank score left blank.
func TestCanvas(t *testing.T) {
	r := roster(t)
	f := func(v float64) *float64 { return &v }
	out := Canvas([]Assignment{{Name: "grade-session-16", ID: "4711", Points: 100}, {Name: "grade-session-17", Points: 100}},
		[]Row{{r[0], []*float64{f(100), f(57.14)}}, {r[1], []*float64{nil, f(0)}}, {Student{Name: "carol"}, []*float64{f(12.5), nil}}})
	want, err := os.ReadFile("testdata/gradebook.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("got\n%s\nwant (testdata/gradebook.csv)\n%s", out, want)
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], "|") != "Student|ID|SIS User ID|SIS Login ID|Section|grade-session-16 (4711)|grade-session-17" {
		t.Errorf("header %q", recs[0])
	}
	if strings.Join(recs[1], "|") != "Points Possible|||||100|100" {
		t.Errorf("points row %q", recs[1])
	}
	if strings.Join(recs[2], "|") != "Doe, Alice|101|S101|alice|Sec A|100|57.14" || recs[3][5] != "" || recs[3][6] != "0" {
		t.Errorf("rows %q, %q", recs[2], recs[3])
	}
}
