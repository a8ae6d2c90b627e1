package cli

import (
	"slices"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// The root help lists the scenarios in the order to meet them, says once
// that session-16 is Day 16, points at where to start, and fits the terminal.
func TestRootHelpIsTheCourse(t *testing.T) {
	out, code := runCLI(t, "--help")
	if code != cmdutil.ExitOK {
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

// An example too wide for the help keeps its command whole on one line: its
// comment moves above it, and nothing breaks it, with a backslash or
// without (a command broken across lines does not paste into every shell).
// Through help, its start is the lab as the user started it.
func TestWrapExampleKeepsCommandsRunnable(t *testing.T) {
	long := "  outboxlab retry-with-dead-letter " + strings.Repeat("--poison-key PAY-003 ", 6) + "--no-report"
	for _, width := range []int{80, report.MaxWidth} {
		got := wrapExample("  outboxlab list\n"+long+"   # several poison keys", width)
		if want := "  outboxlab list\n  # several poison keys\n" + long; got != want {
			t.Errorf("at %d columns:\n%s\nwant\n%s", width, got, want)
		}
	}
	root := newRoot(nil)
	root.Annotations = map[string]string{cmdutil.InvocationAnnotation: "go run ."}
	var out strings.Builder
	root.SetOut(&out)
	root.SetArgs([]string{"retry-with-dead-letter", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n  go run . session-16-retry-with-dead-letter\n", "\n  go run . session-16-retry-with-dead-letter --dead-letter=false\n",
		"\n  go run . session-16-retry-with-dead-letter [flags]\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help started as go run . lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "outboxlab ") {
		t.Errorf("help started as go run . still says outboxlab:\n%s", out.String())
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
