package report

import (
	"strings"
	"testing"
)

// isDemoCommand accepts the words of a small lab: list, a scenario, flags
// and placeholders.
func isDemoCommand(word string) bool {
	switch word {
	case "list", "help", "governance-legacy-max-retry-count", "session-15-double-processing-without-lease":
		return true
	}
	return strings.HasPrefix(word, "-") || strings.HasPrefix(word, "<")
}

// Commands starts the lab's commands as the user started the lab, and only
// those: not the lab's name in prose, in a path, before a colon or a version.
func TestCommandsStartAsInvoked(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Start here: outboxlab list\n", "Start here: go run . list\n"},
		{"  outboxlab <scenario> --help", "  go run . <scenario> --help"},
		{"(outboxlab list shows them all)", "(go run . list shows them all)"},
		{`Use "outboxlab --help" for more`, `Use "go run . --help" for more`},
		{"source <(outboxlab list)", "source <(go run . list)"},
		{"outboxlab list; then outboxlab help", "go run . list; then go run . help"},
		// Not commands:
		{"/usr/local/bin/outboxlab list", "/usr/local/bin/outboxlab list"},
		{"x is not an outboxlab report", "x is not an outboxlab report"},
		{"outboxlab: unknown flag", "outboxlab: unknown flag"},
		{"version:  outboxlab 0.1.0", "version:  outboxlab 0.1.0"},
		{"not-outboxlab list", "not-outboxlab list"},
	} {
		if got := Unglue(Commands(tc.text, "go run .", isDemoCommand)); got != tc.want {
			t.Errorf("Commands(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// A path that ends in the lab's name is not substituted twice.
	path := "'/home/ana/my lab/outboxlab'"
	once := Unglue(Commands("Start here: outboxlab list", path, isDemoCommand))
	if twice := Unglue(Commands(once, path, isDemoCommand)); once != "Start here: "+path+" list" || twice != once {
		t.Errorf("once %q, twice %q", once, twice)
	}
}

// A command is never broken across lines, at any width: one that fits goes
// on a line as a word does, one too wide for a line stays whole after its
// label, or stands on a line of its own in prose; the prose around it wraps
// as before. Every other line fits.
func TestCommandsAreNeverBroken(t *testing.T) {
	try := "  Try:    outboxlab governance-legacy-max-retry-count --dead-letter-on-max-retry-attempts=false\n"
	pair := "  Pair:   outboxlab session-15-double-processing-without-lease, the AFTER that fixes it\n"
	prose := "Long prose about the lab and its scenarios that goes on for a while, then outboxlab list --all, and more words after it.\n"
	for _, invocation := range []string{"outboxlab", "go run .", "/usr/local/lib/outboxlab-0.1/bin/outboxlab"} {
		for _, width := range []int{40, 60, 80, 100} {
			for _, text := range []string{try, pair, prose} {
				out := Fit(Commands(text, invocation, isDemoCommand), width)
				if strings.ContainsRune(out, glue) {
					t.Fatalf("Fit left glue in %q", out)
				}
				command := commandOf(text, invocation)
				if !strings.Contains(out, command) {
					t.Errorf("%s at %d: the command %q is broken:\n%s", invocation, width, command, out)
				}
				for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if Width(l) > width && !onlyCommand(l, command) {
						t.Errorf("%s at %d: line %q is %d columns, and is not only a label and the command",
							invocation, width, l, Width(l))
					}
				}
				if strings.Join(strings.Fields(out), " ") != strings.Join(strings.Fields(Unglue(Commands(text, invocation, isDemoCommand))), " ") {
					t.Errorf("%s at %d: the words changed:\n%s", invocation, width, out)
				}
			}
		}
	}
	// Without Commands the breaker breaks the Try line at 80 columns: the
	// test above would see it.
	if out := Fit(try, 80); strings.Contains(out, commandOf(try, "outboxlab")) {
		t.Errorf("the Try line fits 80 columns unglued: the test proves nothing:\n%s", out)
	}
}

// commandOf is the command text holds, started with invocation.
func commandOf(text, invocation string) string {
	i := strings.Index(text, LabName+" ")
	rest := text[i+len(LabName)+1:]
	return invocation + " " + rest[:commandEnd(rest)]
}

// onlyCommand reports whether l is the command alone, after a label or an
// indent, and before the punctuation that ends it in prose.
func onlyCommand(l, command string) bool {
	before, ok := strings.CutSuffix(strings.TrimRight(l, ",;."), command)
	return ok && len(strings.Fields(before)) <= 1
}

// WrapLine, the report's own wrapper, never breaks a command either and
// writes no glue into the report.
func TestWrapLineKeepsACommandWhole(t *testing.T) {
	long := "  Try:    outboxlab list " + strings.Repeat("--flag ", 14) + "--last"
	got := WrapLine(Commands(long, LabName, isDemoCommand), "          ")
	if got != long {
		t.Errorf("WrapLine broke the command:\n%s", got)
	}
	if got := Wrap(Commands("see outboxlab list "+strings.Repeat("--flag ", 10), LabName, isDemoCommand), 30); strings.Count(got, "\n") != 1 ||
		strings.ContainsRune(got, glue) {
		t.Errorf("Wrap broke or kept the glue in a command:\n%q", got)
	}
}
