package cli

import (
	"regexp"
	"strings"
	"testing"

	"outboxlab/core/report"
)

// TestShowSQLShowsWhatTheWorkersRan: Day 16's AFTER, with its defaults,
// claims PAY-003 three times and settles it twice back to Pending and once
// as DeadLettered (MaxAttempts 3); --show-sql must show exactly those
// transitions on the scenario's own database, the course's claim beside the
// lab's, and leave the report itself as it is without the flag.
func TestShowSQLShowsWhatTheWorkersRan(t *testing.T) {
	const name = "session-16-retry-with-dead-letter"
	code, plain, _ := runOutput(name)
	codeSQL, shown, stderr := runOutput(name, "--show-sql")
	if code != 0 || codeSQL != 0 {
		t.Fatalf("exit %d without --show-sql, %d with it; stderr: %s", code, codeSQL, stderr)
	}
	i := strings.Index(shown, "## "+sqlTitle)
	if i < 0 {
		t.Fatalf("no %q section:\n%s", sqlTitle, shown)
	}
	if strings.Contains(plain, sqlTitle) {
		t.Error("the SQL is shown without --show-sql")
	}
	report, sql := shown[:i], shown[i:]
	sections := func(out string) string { return out[strings.Index(out, "\n## "):] } // the body, without the header
	if body := strings.SplitN(plain, "\ndatabase: ", 2)[0]; !strings.HasPrefix(sections(report), strings.TrimRight(sections(body), "\n")) {
		t.Error("--show-sql changed what the report shows before its SQL section")
	}
	own, other, found := strings.Cut(sql, "  On the other design's database")
	if !found {
		t.Fatalf("the other design's statements are not set apart:\n%s", sql)
	}
	for _, want := range []string{"The course's claim (Day 16, §4)", "AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= $now)"} {
		if !strings.Contains(own, want) {
			t.Errorf("the SQL section lacks %q", want)
		}
	}
	runs := func(part, kind string) []string {
		return regexp.MustCompile(`(?m)^ +\d+  S\d+ +`+regexp.QuoteMeta(kind)+` .*(?:\n {10,}.*)*`).FindAllString(part, -1)
	}
	retries, deaths := runs(own, "retry"), runs(own, "dead-letter")
	if len(retries) != 2 || len(deaths) != 1 {
		t.Fatalf("own design: %d retries and %d dead-letters, want 2 and 1:\n%s", len(retries), len(deaths), own)
	}
	for _, r := range append(retries, deaths...) {
		if !strings.Contains(r, "'status check for PAY-003 failed") || !strings.HasSuffix(r, "→ 1 row") {
			t.Errorf("a transition that is not PAY-003's, or that changed no row: %q", r)
		}
	}
	if strings.Contains(deaths[0], "'2026-01-16T09:00:00.602Z'") == false {
		t.Errorf("the dead-letter is not at 09:00:00.602Z, as the course prints: %q", deaths[0])
	}
	// The BEFORE retries the poison with no exit: no dead-letter at all.
	if n := len(runs(other, "dead-letter")); n != 0 {
		t.Errorf("the BEFORE design dead-lettered %d messages", n)
	}
	if code, _, stderr := runOutput(name, "--show-sql", "--json"); code != 2 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("--show-sql --json: exit %d, stderr %q; want exit 2 and one line", code, stderr)
	}
}

// TestShowSQLFitsTheTerminal: the statements are wrapped to the terminal's
// width like the rest of the run.
func TestShowSQLFitsTheTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	_, out, _ := runOutput("session-16-poison-message-retried-forever", "--show-sql")
	i := strings.Index(out, "## "+sqlTitle)
	if i < 0 {
		t.Fatal("no SQL section")
	}
	for _, l := range strings.Split(out[i:], "\n") {
		if report.Width(l) > 80 && !strings.HasPrefix(l, "database: ") {
			t.Errorf("a line of %d columns at 80: %q", report.Width(l), l)
		}
	}
}
