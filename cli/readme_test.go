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
	for _, line := range strings.Split(string(raw), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			if _, dup := rows[m[1]]; dup {
				t.Errorf("README lists %s twice", m[1])
			}
			rows[m[1]] = m[2:]
		}
	}
	for _, s := range scenarios.All() {
		r, ok := rows[s.Name]
		if !ok {
			t.Errorf("README catalogue has no row for %s", s.Name)
			continue
		}
		delete(rows, s.Name)
		pair := strings.Trim(strings.TrimSpace(r[2]), "`")
		if pair == "—" {
			pair = ""
		}
		if r[0] != s.Family || r[1] != string(s.Kind) || pair != s.Pair {
			t.Errorf("README row for %s says family %s, kind %s, pair %q; registry says %s, %s, %q",
				s.Name, r[0], r[1], pair, s.Family, s.Kind, s.Pair)
		}
	}
	for name := range rows {
		t.Errorf("README catalogue lists %s, which is not registered", name)
	}
}
