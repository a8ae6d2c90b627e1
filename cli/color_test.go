package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/child"
	"outboxlab/core/report"
)

func init() {
	// Lets a test run the command line in a child process attached to a terminal.
	child.Register("cli-main-for-tests", func(_ context.Context, args []string, stdout io.Writer) int {
		return Main(args, stdout, os.Stderr)
	})
}

func TestColorizeMarksChecksAndVerdict(t *testing.T) {
	text := "  PASS  a → 1\n  FAIL  b → 2\nVERDICT: BROKEN ❌\n"
	got := cmdutil.Colorize(text, report.Result{Kind: report.After, Passed: false})
	want := "  \x1b[32mPASS\x1b[0m  a → 1\n  \x1b[31m\x1b[1mFAIL\x1b[0m  b → 2\n\x1b[1m\x1b[31mVERDICT: BROKEN ❌\x1b[0m\n"
	if got != want {
		t.Errorf("colorize =\n%q\nwant\n%q", got, want)
	}
	got = cmdutil.Colorize("  REPRODUCED  a → 1\n  NOT REPRODUCED  b → 2\n", report.Result{Kind: report.Before})
	want = "  \x1b[33mREPRODUCED\x1b[0m  a → 1\n  \x1b[31m\x1b[1mNOT REPRODUCED\x1b[0m  b → 2\n"
	if got != want {
		t.Errorf("colorize of a BEFORE's checks =\n%q\nwant\n%q", got, want)
	}
	if got := cmdutil.Colorize("VERDICT: X\n", report.Result{Kind: report.Before, Passed: true}); !strings.Contains(got, cmdutil.AnsiYellow) {
		t.Errorf("a reproduced BEFORE verdict should be yellow, got %q", got)
	}
}

// TestColorOnlyOnATerminal runs a scenario under script(1), which gives it a
// real pseudo-terminal: colour there, none with NO_COLOR, none in the report.
func TestColorOnlyOnATerminal(t *testing.T) {
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed; no pseudo-terminal to test with")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(env ...string) string {
		cmd := exec.Command(scriptPath, "-qec", exe+" retry-with-dead-letter --dead-letter=false --report-dir "+dir, "/dev/null")
		cmd.Env = append(os.Environ(), child.EnvVar+"=cli-main-for-tests", "TERM=xterm")
		cmd.Env = append(cmd.Env, env...)
		out, _ := cmd.Output() // exit 1: the checks fail by design
		return string(out)
	}
	const redFail = "\x1b[31m\x1b[1mFAIL\x1b[0m  poison tried exactly MaxAttempts"
	if colored := run(); !strings.Contains(colored, redFail) {
		t.Errorf("no red FAIL on a terminal:\n%.600s", colored)
	}
	if plain := run("NO_COLOR=1"); strings.Contains(plain, "\x1b[") {
		i := strings.Index(plain, "\x1b[")
		t.Errorf("NO_COLOR output contains escape codes: %q", plain[max(i-80, 0):min(i+80, len(plain))])
	}
	if plain := run("TERM=dumb"); strings.Contains(plain, "\x1b[") {
		t.Error("TERM=dumb output contains escape codes")
	}
	// no-color.org: an empty NO_COLOR does not switch colour off.
	if colored := run("NO_COLOR="); !strings.Contains(colored, redFail) {
		t.Errorf("an empty NO_COLOR switched colour off:\n%.600s", colored)
	}
	reports, _ := filepath.Glob(dir + "/session-16/*.txt")
	for _, r := range reports {
		b, _ := os.ReadFile(r)
		if strings.Contains(string(b), "\x1b") {
			t.Errorf("report %s contains escape codes", r)
		}
	}
	if len(reports) != 4 {
		t.Errorf("%d reports written, want 4", len(reports))
	}
}
