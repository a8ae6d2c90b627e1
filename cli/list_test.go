package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"outboxlab/cli/cmd/list"
	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// courseStart is how the course begins, written out by hand: Days 13 and
// 14, each BEFORE followed by its AFTER.
var courseStart = []string{
	"session-13-pending-lost-on-restart", "session-13-durable-reconciliation",
	"session-14-dual-write-loses-message", "session-14-transactional-outbox",
	"session-15-double-processing-without-lease", "session-15-outbox-leasing",
}

// listedNames are the scenario names list prints, in order: the lines that
// start with two spaces and a registered name.
func listedNames(out string) []string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "  "); ok && !strings.HasPrefix(rest, " ") {
			if s := scenarios.Lookup(strings.Fields(rest)[0]); s != nil {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

func TestListIsTheCourseInOrder(t *testing.T) {
	out, code := runCLI(t, "list", "--all")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	names := listedNames(out)
	if len(names) != len(scenarios.All()) {
		t.Fatalf("list shows %d scenarios, want %d:\n%s", len(names), len(scenarios.All()), out)
	}
	if !slices.Equal(names[:len(courseStart)], courseStart) {
		t.Errorf("list starts %v, want %v", names[:len(courseStart)], courseStart)
	}
	if names[len(names)-1] != "worker-throughput" {
		t.Errorf("list ends with %s, want worker-throughput last", names[len(names)-1])
	}
	lines := strings.Split(out, "\n")
	if lines[0] != "Start here: outboxlab "+courseStart[0] {
		t.Errorf("first line %q, want the start-here line", lines[0])
	}
	if n := strings.Count(out, "is Day 16"); n != 1 {
		t.Errorf(`"is Day 16" said %d times, want once:\n%s`, n, out)
	}
	for i, l := range lines {
		if report.Width(l) > report.MaxWidth {
			t.Errorf("line %d is %d columns wide: %q", i+1, report.Width(l), l)
		}
	}
	// Each family's title comes once, before its first scenario.
	for _, f := range scenarios.Families() {
		title := strings.SplitN(report.Wrap(scenarios.FamilyTitle(f), report.MaxWidth), "\n", 2)[0]
		if n := strings.Count(out, "\n"+title+"\n"); n != 1 {
			t.Errorf("family %s's title %q shown %d times, want once", f, title, n)
		}
	}
}

// Each kind says what it is to the others: a BEFORE and a paired AFTER name
// their pair, an unpaired AFTER the BEFORE it answers, an EXPERIMENT nothing.
func TestListSaysWhatEachScenarioIsTo(t *testing.T) {
	out, _ := runCLI(t, "list", "--all")
	for _, s := range scenarios.All() {
		block := scenarioBlock(out, s.Name)
		if block == "" {
			t.Errorf("%s not listed on a line of its own", s.Name)
			continue
		}
		var want string
		switch {
		case s.Pair != "":
			want = "(pairs with " + s.Pair + ")"
		case s.Answers != "":
			want = "(answers " + s.Answers + ")"
		}
		if !strings.Contains(block, string(s.Kind)) || (want != "" && !strings.Contains(block, want)) {
			t.Errorf("%s: lines %q lack %s %q", s.Name, block, s.Kind, want)
		}
		if want == "" && (strings.Contains(block, "(pairs with") || strings.Contains(block, "(answers")) {
			t.Errorf("%s: an unpaired %s names a partner: %q", s.Name, s.Kind, block)
		}
		if !strings.Contains(strings.Join(strings.Fields(block), " "), s.Summary) {
			t.Errorf("%s: summary missing from %q", s.Name, block)
		}
	}
}

// list's first screen fits a terminal of 40 rows at 80 columns with room for
// the command typed and the prompt after it: it opens with where to start,
// names the start's family (the course's Days) a scenario a line, in course
// order, then every other family with its number of scenarios, and says how
// to see the whole catalogue (list --all), which is longer than a screen.
func TestListFirstScreenFitsATerminal(t *testing.T) {
	const rows, columns = 40, 80
	out, code := runAt(t, columns, "list")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	scenariotest.FitsIn(t, "list at 80 columns", out, columns)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > rows-2 {
		t.Errorf("list prints %d lines at %d columns, want at most %d (a %d-row screen, the command and the prompt):\n%s",
			len(lines), columns, rows-2, rows, out)
	}
	if lines[0] != "Start here: outboxlab "+scenarios.StartHere {
		t.Errorf("first line %q, want the start-here line", lines[0])
	}
	start := scenarios.Lookup(scenarios.StartHere)
	var days []string
	count := map[string]int{}
	for _, s := range scenarios.All() {
		if s.Family == start.Family {
			days = append(days, s.Name)
		}
		count[s.Family]++
	}
	if got := listedNames(out); !slices.Equal(got, days) {
		t.Errorf("list names %v, want the %s family's, in order: %v", got, start.Family, days)
	}
	for _, f := range scenarios.Families() {
		if f == start.Family {
			continue
		}
		want := regexp.MustCompile(`(?m)^  ` + f + ` +` + report.Plural(count[f], "scenario") + `  `)
		if !want.MatchString(out) {
			t.Errorf("family %s is not listed with its %s:\n%s", f, report.Plural(count[f], "scenario"), out)
		}
	}
	if !strings.Contains(out, "  outboxlab list --all\n") {
		t.Errorf("list does not say how to see every scenario:\n%s", out)
	}
	all, _ := runAt(t, columns, "list", "--all")
	if n := strings.Count(all, "\n"); n <= rows {
		t.Errorf("list --all is %d lines: the first screen could be the whole catalogue", n)
	}
}

// scenarioBlock is the lines list printed for name: its own line (name,
// then spaces or its end) and the indented lines below it.
func scenarioBlock(out, name string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if l != "  "+name && !strings.HasPrefix(l, "  "+name+" ") {
			continue
		}
		block := []string{l}
		for _, more := range lines[i+1:] {
			if !strings.HasPrefix(more, "      ") {
				break
			}
			block = append(block, more)
		}
		return strings.Join(block, "\n")
	}
	return ""
}

func TestListJSONHasTheSameOrderAndFields(t *testing.T) {
	out, code := runCLI(t, "list", "--json")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var entries []map[string]any
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	all := scenarios.All()
	if len(entries) != len(all) {
		t.Fatalf("%d entries, want %d", len(entries), len(all))
	}
	for i, s := range all {
		e := entries[i]
		if e["name"] != s.Name || e["family_title"] != scenarios.FamilyTitle(s.Family) || e["kind"] != string(s.Kind) {
			t.Errorf("entry %d = %v, want %s of %s", i, e, s.Name, s.Family)
		}
		if day, _ := e["day"].(float64); int(day) != s.Day {
			t.Errorf("%s: day %v, want %d", s.Name, e["day"], s.Day)
		}
		if answers, _ := e["answers"].(string); answers != s.Answers {
			t.Errorf("%s: answers %q, want %q", s.Name, answers, s.Answers)
		}
		idle, ok := e["not_exercised_with"].([]any)
		if got := fmt.Sprint(idle); !ok || got != fmt.Sprint(s.NotExercisedWith) {
			t.Errorf("%s: not_exercised_with %v, want %v", s.Name, e["not_exercised_with"], s.NotExercisedWith)
		}
	}
	if entries[6]["name"] != "session-16-poison-message-retried-forever" || entries[6]["day"] != float64(16) {
		t.Errorf("entry 6 = %v, want Day 16's BEFORE", entries[6])
	}
}

// list --family lists exactly that family's scenarios, in the catalogue's
// order, as text and as JSON; a name that is not a family is refused as all
// --family refuses it.
func TestListFamily(t *testing.T) {
	for _, family := range scenarios.Families() {
		var want []string
		for _, s := range scenarios.All() {
			if s.Family == family {
				want = append(want, s.Name)
			}
		}
		out, code := runCLI(t, "list", "--family", family)
		if code != cmdutil.ExitOK {
			t.Fatalf("list --family %s: exit %d", family, code)
		}
		if got := listedNames(out); !slices.Equal(got, want) {
			t.Errorf("list --family %s lists %v, want %v", family, got, want)
		}
		out, code = runCLI(t, "list", "--family", family, "--json")
		var entries []list.CatalogueEntry
		if err := json.Unmarshal([]byte(out), &entries); err != nil || code != cmdutil.ExitOK {
			t.Fatalf("list --family %s --json: exit %d, %v", family, code, err)
		}
		var got []string
		for _, e := range entries {
			if e.Family != family {
				t.Errorf("list --family %s --json has %s of family %s", family, e.Name, e.Family)
			}
			got = append(got, e.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("list --family %s --json lists %v, want %v", family, got, want)
		}
	}
	var listErr, allErr strings.Builder
	listCode := Main([]string{"list", "--family", "nope"}, &strings.Builder{}, &listErr)
	allCode := Main([]string{"all", "--family", "nope", "--no-report"}, &strings.Builder{}, &allErr)
	if listCode != cmdutil.ExitUsage || allCode != cmdutil.ExitUsage || listErr.String() != allErr.String() ||
		!strings.Contains(listErr.String(), `--family "nope" is not a family (have: `+strings.Join(scenarios.Families(), ", ")+")") {
		t.Errorf("list --family nope: exit %d %q; all --family nope: exit %d %q; want both exit 2 with the same line",
			listCode, listErr.String(), allCode, allErr.String())
	}
}
