package cli

import (
	"slices"
	"strings"
	"testing"

	"outboxlab/core/report"
)

// The root help lists the scenarios in the order to meet them, says once
// that session-16 is Day 16, points at where to start, and fits the terminal.
func TestRootHelpIsTheCourse(t *testing.T) {
	out, code := runCLI(t, "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "  ") && len(f) > 0 && slices.Contains(courseStart, f[0]) {
			names = append(names, f[0])
		}
	}
	if !slices.Equal(names, courseStart) {
		t.Errorf("help lists %v, want %v", names, courseStart)
	}
	if n := strings.Count(out, "is Day 16"); n != 1 {
		t.Errorf(`"is Day 16" said %d times, want once`, n)
	}
	if !strings.Contains(out, "\nStart here: outboxlab session-13-pending-lost-on-restart\n") {
		t.Error("no start-here line")
	}
	requireFits(t, "--help", out)
}

func TestWrapExampleKeepsCommandsRunnable(t *testing.T) {
	long := "  outboxlab retry-with-dead-letter " + strings.Repeat("--poison-key PAY-003 ", 6) + "--no-report"
	got := wrapExample("  outboxlab list\n"+long+"   # several poison keys", report.MaxWidth)
	lines := strings.Split(got, "\n")
	if lines[0] != "  outboxlab list" || lines[1] != "  # several poison keys" {
		t.Fatalf("the comment did not move above its command:\n%s", got)
	}
	var joined []string
	for i, l := range lines[2:] {
		if report.Width(l) > report.MaxWidth {
			t.Errorf("line %q is %d columns", l, report.Width(l))
		}
		last := i == len(lines)-3
		if !last && !strings.HasSuffix(l, " \\") {
			t.Errorf("continued line %q does not end in a backslash", l)
		}
		joined = append(joined, strings.TrimSpace(strings.TrimSuffix(l, "\\")))
	}
	if strings.Join(joined, " ") != strings.TrimSpace(long) {
		t.Errorf("the command changed:\n%s\nwant\n%s", strings.Join(joined, " "), long)
	}
}

func TestWrapTextKeepsIndentation(t *testing.T) {
	text := "short\n    " + strings.Repeat("word ", 30)
	for i, l := range strings.Split(report.Fit(text, report.MaxWidth), "\n") {
		if report.Width(l) > report.MaxWidth || (i > 0 && !strings.HasPrefix(l, "    word")) {
			t.Errorf("line %d %q", i, l)
		}
	}
}
