package grade

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// slug is a heading's anchor as a Markdown viewer (GitHub's) makes it:
// lower case, punctuation dropped, spaces as hyphens.
func slug(heading string) string {
	s := strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "#")))
	s = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`).ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// TestWhereToLook holds the table of where to look to the page and the
// starters: every section a check names is a heading of the protocol page
// (each Day's is the Day's own), every TODO a check names is a numbered
// TODO of the Day's starter, every TODO there is numbered and named by a
// check, and every check the table lists is one a Day judges.
func TestWhereToLook(t *testing.T) {
	page, err := os.ReadFile("../" + ProtocolPage)
	if err != nil {
		t.Fatal(err)
	}
	heading := map[string]string{}
	for _, h := range regexp.MustCompile(`(?m)^#+ .*$`).FindAllString(string(page), -1) {
		heading[slug(h)] = h
	}
	for n, a := range sections {
		if h, ok := heading[a]; !ok || !strings.Contains(h, " "+n+". ") && !strings.Contains(h, " "+n+" ") {
			t.Errorf("section %s: no heading of %s has the anchor #%s (numbered %s)", n, ProtocolPage, a, n)
		}
	}
	var sources strings.Builder
	for _, pattern := range []string{"*/*.go", "*.go"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") && !strings.HasPrefix(f, "summary") {
				raw, _ := os.ReadFile(f)
				sources.Write(raw)
			}
		}
	}
	numbered := regexp.MustCompile(`TODO\(([^)]+)\)( #(\d+))?`)
	for _, d := range Days() {
		sec, ok := daySection[d.ID]
		if !ok || !strings.Contains(heading[sections[sec]], "(`"+d.ID+"`") {
			t.Errorf("%s: its section %q is not the page's heading of the Day", d.ID, sec)
		}
		if d.Starter == "" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("..", "workers", "_starter", d.Starter, "*.go"))
		inStarter := map[int]bool{}
		for _, f := range files {
			raw, _ := os.ReadFile(f)
			for _, m := range numbered.FindAllStringSubmatch(string(raw), -1) {
				if m[1] != todoTag[d.ID] || m[3] == "" {
					t.Errorf("%s: %q is not numbered as TODO(%s) #n", f, m[0], todoTag[d.ID])
					continue
				}
				n, _ := strconv.Atoi(m[3])
				inStarter[n] = true
			}
		}
		named := map[int]bool{}
		for _, c := range todos[d.ID] {
			if !strings.Contains(sources.String(), `"`+c.check) {
				t.Errorf("%s: no check of grade's is named %q…", d.ID, c.check)
			}
			for _, n := range c.todos {
				named[n] = true
				if !inStarter[n] {
					t.Errorf("%s: check %q names TODO #%d, which the starter does not have", d.ID, c.check, n)
				}
			}
		}
		for n := range inStarter {
			if !named[n] {
				t.Errorf("%s: the starter's TODO #%d is named by no check", d.ID, n)
			}
		}
		if len(inStarter) == 0 {
			t.Errorf("%s: the starter has no numbered TODO", d.ID)
		}
	}
	f := &Failing{Name: "every run: the poison DeadLettered with its LastError; its payment still PendingConfirmation"}
	f.place("session-16")
	if f.Section != "7.1" || !slices.Equal(f.TODOs, []int{4}) || f.look() != ProtocolPage+" §7.1 · TODO(Day 16) #4" {
		t.Errorf("placed %+v (%s), want §7.1 and TODO #4", f, f.look())
	}
	f = &Failing{Name: "protocol: every timestamp written is the lab's clock, in its text"}
	if f.place("session-15"); f.Section != "4" || len(f.TODOs) != 0 {
		t.Errorf("placed %+v, want §4 and no TODO", f)
	}
}
