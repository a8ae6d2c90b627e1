package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// TestPrintedCommandsRun runs the commands the lab prints through a shell,
// as printed, and requires the exit code and verdict each announces: every
// scenario's Next commands (its pair's, or the BEFORE it answers, exit 0 at
// its defaults; its Try line, the verdict on the line below it) and
// exercise's last line (grading the starter fails until its TODOs are
// done: exit 1). The lab is the real binary (main.go, which says how it was
// started) built into a folder put on the PATH, so the student types
// `outboxlab <scenario>`; exercise and the last subtests start it by the
// path typed and with `go run`. Each command runs in a folder of its own, so that the
// reports it writes by default land there.
func TestPrintedCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lab and runs every scenario twice, through a shell")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no POSIX shell to paste the commands into")
	}
	exe := buildLab(t)
	plain := slices.Clip(append(os.Environ(), "NO_COLOR=1"))
	env := append(plain, "PATH="+filepath.Dir(exe)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Run("exercise", func(t *testing.T) {
		t.Parallel()
		// Typed as a path from its folder: a line that changed folder
		// first (cd day16 && ./outboxlab …) would not find the lab.
		dir := filepath.Dir(exe)
		out := paste(t, plain, dir, "./outboxlab exercise session-16 day16", cmdutil.ExitOK)
		line := lastLine(out)
		if !strings.HasPrefix(line, "         ./outboxlab grade session-16 -- ") {
			t.Fatalf("exercise's last line is not the grade command alone:\n%s", out)
		}
		graded := paste(t, plain, dir, strings.TrimSpace(line), cmdutil.ExitChecksFailed)
		if !strings.Contains(graded, "\nVERDICT: "+report.VerdictFail+" ") {
			t.Errorf("the starter graded without a failing verdict:\n%s", outputEnd(graded))
		}
	})
	typed := map[string]bool{} // the lines the subtests below type themselves
	for _, s := range scenarios.All() {
		typed["outboxlab "+s.Name] = true
	}
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			if !s.Alone { // a scenario that measures runs with nothing beside it
				t.Parallel()
			}
			commands := nextCommands(t, paste(t, env, t.TempDir(), "outboxlab "+s.Name, cmdutil.ExitOK))
			for _, c := range commands {
				if !strings.HasPrefix(c.line, "outboxlab ") {
					t.Errorf("%q does not start as the student started the lab (outboxlab)", c.line)
				}
				if c.kind != "" {
					continue // grade is the exercise's, read with it (buildAndGrade)
				}
				if typed[c.line] && c.exit == cmdutil.ExitOK {
					continue // its scenario's own subtest runs this very line, exit 0
				}
				out := paste(t, env, t.TempDir(), c.line, c.exit)
				if !strings.Contains(out, "\nVERDICT: "+c.verdict) {
					t.Errorf("%s: no verdict %s:\n%s", c.line, c.verdict, outputEnd(out))
				}
			}
			buildAndGrade(t, env, commands)
		})
	}
	startedAs(t, exe, plain)
}

// buildAndGrade runs a Next section's Build line (exercise writes the
// starting worker: exit 0) and requires its Grade line to be the very
// command exercise ends on, which the exercise subtest runs (exit 1 until
// the TODOs are done).
func buildAndGrade(t *testing.T, env []string, commands []printedCommand) {
	t.Helper()
	var build, grade string
	for _, c := range commands {
		switch c.kind {
		case "build":
			build = c.line
		case "grade":
			grade = c.line
		}
	}
	if build == "" && grade == "" {
		return
	}
	if build == "" || grade == "" {
		t.Fatalf("a Build line %q without its Grade line %q, or the other way round", build, grade)
	}
	if last := strings.TrimSpace(lastLine(paste(t, env, t.TempDir(), build, cmdutil.ExitOK))); last != grade {
		t.Errorf("%s ends on %q; the Next section's Grade line is %q", build, last, grade)
	}
}

// startedAs runs the lab started by the path typed, and with `go run` from
// the module's root and from a folder below it: its Next commands start that
// way (the path quoted when it holds a space; `go run .`, `go run ..`), and
// each runs as printed with env, whose PATH holds no outboxlab.
func startedAs(t *testing.T, exe string, env []string) {
	spaced := filepath.Join(t.TempDir(), "my lab", "outboxlab")
	if err := os.MkdirAll(filepath.Dir(spaced), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(exe, spaced); err != nil {
		t.Fatal(err)
	}
	const name = "session-16-retry-with-dead-letter" // its Try line fails: exit 1
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		how, dir, typed, starts, noReport string
	}{
		{"a path typed", t.TempDir(), exe, exe + " ", ""},
		{"a path with a space", t.TempDir(), "'" + spaced + "'", "'" + spaced + "' ", ""},
		// In the lab's own folders no report is written: the working
		// tree is left as it was.
		{"go run from the module root", root, "go run .", "go run . ", " --no-report"},
		{"go run from a folder below it", filepath.Join(root, "cli"), "go run ..", "go run .. ", " --no-report"},
	} {
		t.Run(tc.how, func(t *testing.T) {
			t.Parallel()
			for _, c := range nextCommands(t, paste(t, env, tc.dir, tc.typed+" "+name+tc.noReport, cmdutil.ExitOK)) {
				if !strings.HasPrefix(c.line, tc.starts) {
					t.Errorf("%q does not start as the lab was started (%s)", c.line, tc.starts)
				}
				if c.kind != "" {
					continue // exercise would write into the lab's own folders
				}
				out := paste(t, env, tc.dir, c.line+tc.noReport, c.exit)
				if !strings.Contains(out, "\nVERDICT: "+c.verdict) {
					t.Errorf("%s: no verdict %s:\n%s", c.line, c.verdict, outputEnd(out))
				}
			}
		})
	}
}

// printedCommand is a command a run printed, with the exit code and the
// verdict it announces.
type printedCommand struct {
	line    string
	exit    int
	verdict string
	kind    string // "build" (exercise) or "grade", else a scenario's run
}

// The lines of a Next section that name a command: the pair's ends at its
// comma, the answered BEFORE's before its parenthesis (the prose after
// either may go on on the next line), the Try line's at the line's end.
var (
	pairLine    = regexp.MustCompile(`^  Pair: +(.+?),(?: |$)`)
	thenLine    = regexp.MustCompile(`^  Then: +(.+?),(?: |$)`)
	buildLine   = regexp.MustCompile(`^  Build: +(.+?),(?: |$)`)
	gradeLine   = regexp.MustCompile(`^  Grade: +(.+)$`)
	answersLine = regexp.MustCompile(`^  Answers: +(.+?)(?: \(|$)`)
	tryLine     = regexp.MustCompile(`^  Try: +(.+)$`)
	announced   = regexp.MustCompile(`^ +→ (\[[^]]+\]) `)
)

// nextCommands reads the commands of out's Next section: the pair's or the
// answered BEFORE's (at its defaults a scenario makes its point: exit 0),
// and the Try line, whose verdict the line below it announces.
func nextCommands(t *testing.T, out string) []printedCommand {
	t.Helper()
	_, next, ok := strings.Cut(out, "\n## "+scenarios.NextTitle+"\n")
	if !ok {
		t.Fatalf("no Next section:\n%s", outputEnd(out))
	}
	lines := strings.Split(next, "\n")
	var commands []printedCommand
	for i, l := range lines {
		if label, _, _ := strings.Cut(strings.TrimSpace(l), ":"); strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") &&
			label != "Course" && !pairLine.MatchString(l) && !answersLine.MatchString(l) && !tryLine.MatchString(l) &&
			!thenLine.MatchString(l) && !buildLine.MatchString(l) && !gradeLine.MatchString(l) {
			t.Errorf("a Next line this test does not read: %q", l)
		}
		if m := pairLine.FindStringSubmatch(l); m != nil {
			commands = append(commands, printedCommand{m[1], cmdutil.ExitOK, "", ""})
		}
		if m := answersLine.FindStringSubmatch(l); m != nil {
			commands = append(commands, printedCommand{m[1], cmdutil.ExitOK, "", ""})
		}
		if m := thenLine.FindStringSubmatch(l); m != nil {
			commands = append(commands, printedCommand{m[1], cmdutil.ExitOK, "", ""})
		}
		if m := buildLine.FindStringSubmatch(l); m != nil {
			commands = append(commands, printedCommand{m[1], cmdutil.ExitOK, "", "build"})
		}
		if m := gradeLine.FindStringSubmatch(l); m != nil {
			commands = append(commands, printedCommand{m[1], cmdutil.ExitChecksFailed, "", "grade"})
		}
		if m := tryLine.FindStringSubmatch(l); m != nil {
			v := announced.FindStringSubmatch(lines[min(i+1, len(lines)-1)])
			if v == nil {
				t.Fatalf("the Try line is not followed by the verdict it announces (broken across lines?):\n%s", next)
			}
			exit := cmdutil.ExitChecksFailed
			if v[1] == report.VerdictPass || v[1] == report.VerdictReproduced {
				exit = cmdutil.ExitOK
			}
			commands = append(commands, printedCommand{m[1], exit, v[1], ""})
		}
	}
	if !slices.ContainsFunc(commands, func(c printedCommand) bool { return c.verdict != "" }) {
		t.Fatalf("no Try line in the Next section:\n%s", next)
	}
	return commands
}

// paste runs line in dir through sh -c, as a user pasting it into a shell,
// and requires the exit code want; it returns what the command printed.
func paste(t *testing.T, env []string, dir, line string, want int) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	if code != want {
		t.Errorf("sh -c %q in %s: exit %d, want %d:\n%s", line, dir, code, want, outputEnd(out.String()))
	}
	return out.String()
}

// outputEnd is the end of a command's output, where its verdict and its
// error are.
func outputEnd(s string) string { return s[max(0, len(s)-2000):] }

// lastLine is the last line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}
