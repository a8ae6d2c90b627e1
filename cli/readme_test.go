package cli

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
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

// readmeLines is the README, a line each.
func readmeLines(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(raw), "\n")
}

// readmeFirstScreen is how many lines a student sees before scrolling.
const readmeFirstScreen = 40

// TestReadmeSetupIsTwoCommands holds the CONTRACT's setup: the README's Setup
// block, on its first screen, is exactly the command that runs a scenario
// and the one that runs the tests.
func TestReadmeSetupIsTwoCommands(t *testing.T) {
	lines := readmeLines(t)
	setup := slices.Index(lines, "## Setup")
	if setup < 0 {
		t.Fatal("the README has no ## Setup")
	}
	open := setup + slices.Index(lines[setup:], "```sh")
	end := open + 1 + slices.Index(lines[open+1:], "```")
	if open < setup || end <= open || end >= readmeFirstScreen {
		t.Fatalf("no ```sh block under ## Setup within the first %d lines (Setup at %d, block %d-%d)",
			readmeFirstScreen, setup+1, open+1, end+1)
	}
	var commands []string
	for _, l := range lines[open+1 : end] {
		cmd, _, _ := strings.Cut(l, "#")
		commands = append(commands, strings.TrimSpace(cmd))
	}
	if want := []string{"go run . session-16-retry-with-dead-letter", "make test"}; !slices.Equal(commands, want) {
		t.Errorf("the README's setup commands are %q, want %q (docs/CONTRACT.md)", commands, want)
	}
}

// TestReadmeFirstScreenLeadsStudents: the first screen runs the course's
// first scenario (Day 13's BEFORE), links the students' section, and every
// `go run . X` on it is a command the lab has; the students' section comes
// before the instructors'.
func TestReadmeFirstScreenLeadsStudents(t *testing.T) {
	lines := readmeLines(t)
	screen := strings.Join(lines[:readmeFirstScreen], "\n")
	first := scenarios.All()[0].Name
	if !strings.HasPrefix(first, "session-13-") {
		t.Errorf("the course's first scenario is %s, not Day 13's", first)
	}
	if !regexp.MustCompile(`(?m)^\s*go run \. ` + regexp.QuoteMeta(first) + `\s*$`).MatchString(screen) {
		t.Errorf("the README's first %d lines do not run %s, the first scenario:\n%s", readmeFirstScreen, first, screen)
	}
	if !strings.Contains(screen, "(#write-your-own-worker)") {
		t.Errorf("the README's first %d lines do not link Write your own worker", readmeFirstScreen)
	}
	root := newRoot(nil)
	for _, m := range regexp.MustCompile("go run \\. ([a-z0-9-]+)").FindAllStringSubmatch(screen, -1) {
		if c, _, err := root.Find([]string{m[1]}); err != nil || c == root {
			t.Errorf("the README's first screen runs go run . %s, which the lab does not have", m[1])
		}
	}
	students := slices.Index(lines, "## Write your own worker")
	instructors := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "## For instructors") })
	if students < 0 || instructors < 0 || students > instructors {
		t.Errorf("## Write your own worker at line %d, ## For instructors at line %d: the students' section comes first",
			students+1, instructors+1)
	}
}

// TestReadmeLinksResolve: every link to a section of the README names a
// heading it has (GitHub's anchors: lower case, spaces to hyphens, other
// punctuation dropped).
func TestReadmeLinksResolve(t *testing.T) {
	lines := readmeLines(t)
	anchors := map[string]bool{}
	drop := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	for _, l := range lines {
		if h, ok := strings.CutPrefix(l, "#"); ok {
			title := strings.TrimSpace(strings.TrimLeft(h, "#"))
			anchors[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(title), ""), " ", "-")] = true
		}
	}
	links := regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(strings.Join(lines, "\n"), -1)
	if len(links) == 0 {
		t.Fatal("the README links none of its sections")
	}
	for _, m := range links {
		if !anchors[m[1]] {
			t.Errorf("the README links #%s; no heading has that anchor", m[1])
		}
	}
}

// TestReadmeGoRunExitCodes runs the lab's side of every row of the README's
// table of exit codes under go run: a `./outboxlab …` row's code is the
// lab's; a `go run . …` row's is 0 for 0 and 1 for any other, whose
// `exit status N` names the lab's code; a quoted error line is the lab's.
func TestReadmeGoRunExitCodes(t *testing.T) {
	lines := readmeLines(t)
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "### Exit codes under go run") })
	if at < 0 {
		t.Fatal("the README has no ### Exit codes under go run")
	}
	row := regexp.MustCompile("^\\| `(go run \\.|\\./outboxlab) ([^`]+)` \\| ([0-9]) \\| (.*) \\|$")
	rows := 0
	for _, l := range lines[at:] {
		if strings.HasPrefix(l, "#") && rows > 0 {
			break
		}
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rows++
		var out, errb bytes.Buffer
		code := Main(append(strings.Fields(m[2]), "--no-report"), &out, &errb)
		seen, _ := strconv.Atoi(m[3])
		want := code
		if m[1] == "go run ." && code != 0 {
			want = 1
			if !strings.Contains(m[4], fmt.Sprintf("`exit status %d`", code)) {
				t.Errorf("%s %s: the lab exits %d; the README's stderr says %s", m[1], m[2], code, m[4])
			}
		}
		if seen != want {
			t.Errorf("%s %s: the README says exit %d; the lab exits %d, so it is %d", m[1], m[2], seen, code, want)
		}
		for _, q := range regexp.MustCompile("`(outboxlab: [^`]+)`").FindAllStringSubmatch(m[4], -1) {
			if !strings.Contains(errb.String(), q[1]) {
				t.Errorf("%s %s: the README quotes %q; the lab's stderr is %q", m[1], m[2], q[1], errb.String())
			}
		}
	}
	if rows < 4 {
		t.Errorf("the table has %d rows, want the exits 0 to 3", rows)
	}
}
