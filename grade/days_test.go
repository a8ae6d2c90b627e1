package grade

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestOneTableOfDays holds the one list of Days and its one table of names:
// every id and alias names one Day, Lookup finds it by each, and the
// protocol page's section of the Day gives the same id and aliases.
func TestOneTableOfDays(t *testing.T) {
	page, err := os.ReadFile("../docs/grade-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := regexp.MustCompile(`(?m)^### 7\.\d+ .*$`).FindAllString(string(page), -1)
	if len(headings) != len(Days()) {
		t.Errorf("the protocol page has %d Day sections, grade %d Days", len(headings), len(Days()))
	}
	seen := map[string]string{}
	for _, d := range Days() {
		for _, name := range append([]string{d.ID}, d.Aliases...) {
			if other, dup := seen[name]; dup {
				t.Errorf("%q names both %s and %s", name, other, d.ID)
			}
			seen[name] = d.ID
			if Lookup(name) != d {
				t.Errorf("Lookup(%q) is not %s", name, d.ID)
			}
		}
		var section string
		for _, h := range headings {
			if strings.Contains(h, "(`"+d.ID+"`") {
				section = h
			}
		}
		if section == "" {
			t.Errorf("no section of the protocol page is %s's: want a heading ### 7.N … (`%s`…)", d.ID, d.ID)
			continue
		}
		if got := regexp.MustCompile("alias `([^`]+)`").FindAllStringSubmatch(section, -1); len(got) != len(d.Aliases) {
			t.Errorf("%q names %d aliases, the Day %q", section, len(got), d.Aliases)
		} else {
			for i, m := range got {
				if m[1] != d.Aliases[i] {
					t.Errorf("%q names alias %s, the Day %s", section, m[1], d.Aliases[i])
				}
			}
		}
		if d.Defaults == nil || d.Vary == nil || d.Defaults.Common().Workers < 1 {
			t.Errorf("%s declares no defaults, no Vary, or no worker", d.ID)
		}
	}
}
