package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"outboxlab/scenarios"
)

// TestReadmeCatalogueMatchesRegistry keeps the README's catalogue table in
// sync with the registry: a scenario without a row fails the build, and so
// does a row for a scenario that does not exist or says the wrong thing.
func TestReadmeCatalogueMatchesRegistry(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z0-9-]+)`[^|]*\\| ([a-z]+) \\| (BEFORE|AFTER|EXPERIMENT) \\| ([^|]*) \\| ([^|]+) \\|$")
	rows := map[string][]string{}
	var order []string
	for _, line := range strings.Split(string(raw), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			if _, dup := rows[m[1]]; dup {
				t.Errorf("README lists %s twice", m[1])
			}
			rows[m[1]] = m[2:]
			order = append(order, m[1])
		}
	}
	// In the course's order, as list prints it.
	for i, s := range scenarios.All() {
		if i < len(order) && order[i] != s.Name {
			t.Errorf("README catalogue row %d is %s, want %s (the order of outboxlab list)", i+1, order[i], s.Name)
			break
		}
	}
	for _, s := range scenarios.All() {
		r, ok := rows[s.Name]
		if !ok {
			t.Errorf("README catalogue has no row for %s", s.Name)
			continue
		}
		delete(rows, s.Name)
		pair, answers := strings.Trim(strings.TrimSpace(r[2]), "`"), ""
		if pair == "—" {
			pair = ""
		}
		if a, ok := strings.CutPrefix(pair, "answers `"); ok {
			pair, answers = "", a
		}
		if r[0] != s.Family || r[1] != string(s.Kind) || pair != s.Pair || answers != s.Answers {
			t.Errorf("README row for %s says family %s, kind %s, pair %q, answers %q; registry says %s, %s, %q, %q",
				s.Name, r[0], r[1], pair, answers, s.Family, s.Kind, s.Pair, s.Answers)
		}
	}
	for name := range rows {
		t.Errorf("README catalogue lists %s, which is not registered", name)
	}
}
