package scenariotest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// Runner runs the lab's command line in-process (cli.Main) with args and
// no report, and returns its exit code and what it printed.
type Runner func(args ...string) (code int, stdout, stderr string)

// The exit codes of docs/CONTRACT.md that the extremes are judged by.
const (
	exitOK           = 0
	exitChecksFailed = 1
	exitUsage        = 2
)

// Extremes drives every limit s declares (Scenario.Limits) through run:
// each flag at its minimum and its maximum with the others at their
// defaults, all at their minimum, all at their maximum. Each run must finish
// with its checks' verdict (exit 0 or 1), never "cannot run" (3) or a usage
// error (2), and every line it prints must fit 100 columns (the width rule
// holds for every accepted value, not only the defaults); one step beyond a
// limit must be refused with exit 2, in one line naming a flag. A scenario
// gets it from its declarations alone.
func Extremes(t *testing.T, s *scenarios.Scenario, run Runner) {
	t.Helper()
	ExtremesAt(t, s, run, report.MaxWidth)
}

// ExtremesAt is Extremes with every line the runs print required to fit
// width columns: run shows them on a terminal that wide.
func ExtremesAt(t *testing.T, s *scenarios.Scenario, run Runner, width int) {
	t.Helper()
	fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
	s.Bind(fs)
	var runs [][]string
	var allMin, allMax []string
	limits := s.Limits()
	for _, l := range limits {
		f := fs.Lookup(l.Flag)
		if f == nil {
			t.Fatalf("limit names --%s, which %s does not have", l.Flag, s.Name)
		}
		lo, hi := "--"+l.Flag+"="+l.Min, "--"+l.Flag+"="+l.Max
		runs = append(runs, []string{lo}, []string{hi})
		allMin, allMax = append(allMin, lo), append(allMax, hi)
		for _, beyond := range []string{step(t, f.Value.Type(), l.Min, -1), step(t, f.Value.Type(), l.Max, +1)} {
			if beyond == "" {
				continue
			}
			arg := "--" + l.Flag + "=" + beyond
			if code, _, stderr := run(s.Name, arg); code != exitUsage {
				t.Errorf("%s %s: exit %d, want %d (beyond the declared limit); stderr: %s", s.Name, arg, code, exitUsage, stderr)
			} else if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("%s %s: refusal is not one line: %q", s.Name, arg, stderr)
			} else if !strings.Contains(stderr, "--") {
				// Usually --flag itself; a flag bounded by another may be
				// refused through it (poison-counter's --messages by --lethal).
				t.Errorf("%s %s: refusal %q names no flag", s.Name, arg, stderr)
			}
		}
	}
	if len(limits) > 1 {
		runs = append(runs, allMin, allMax)
	}
	// The runs side by side, a few at a time: a scenario that waits (a
	// handler delay, a child process) leaves the CPU to the others.
	var wg sync.WaitGroup
	slots := make(chan struct{}, 3)
	for _, args := range runs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			code, stdout, stderr := run(append([]string{s.Name}, args...)...)
			if code != exitOK && code != exitChecksFailed {
				t.Errorf("%s %s: exit %d, want 0 or 1; stderr: %s", s.Name, strings.Join(args, " "), code, stderr)
			}
			FitsIn(t, s.Name+" "+strings.Join(args, " "), stdout+stderr, width)
		}()
	}
	wg.Wait()
}

// pathLine is a line that is only a label and a file path or URL: exempt
// from the width limit, since a path cannot be wrapped.
var pathLine = regexp.MustCompile(`^[^/]{0,40}?\s*\S*(/|://)\S*$`)

// commandLine is a line that is (after its indent or a label) one of the
// lab's commands: the lab's name, `go run DIR` or a path to it, then its
// words.
var commandLine = regexp.MustCompile(`^(?:[^:]{0,44}: +| *)((?:outboxlab|go run \S+|\S*/outboxlab|'[^']*/outboxlab') \S.*)$`)

// onlyCommand reports whether l is only a label and one of the lab's
// commands (and the punctuation that ends it), with no prose after it:
// exempt from the width limit, since a command broken across lines would
// not run as printed.
func onlyCommand(l string) bool {
	m := commandLine.FindStringSubmatch(l)
	if m == nil {
		return false
	}
	for _, prose := range []string{", ", "; ", " (", "  "} {
		if strings.Contains(m[1], prose) {
			return false
		}
	}
	return true
}

// TooWide returns the lines of out wider than report.MaxWidth, leaving out
// the exempt ones.
func TooWide(out string) []string { return tooWideIn(out, report.MaxWidth) }

// tooWideIn returns the lines of out wider than width, leaving out the
// exempt ones: a label and a path, a label and a command.
func tooWideIn(out string, width int) []string {
	var bad []string
	for _, l := range strings.Split(out, "\n") {
		if w := report.Width(l); w > width && !pathLine.MatchString(l) && !onlyCommand(l) {
			bad = append(bad, l)
		}
	}
	return bad
}

// Fits fails t, naming what, for every line of out wider than 100 columns
// (TooWide).
func Fits(t testing.TB, what, out string) {
	t.Helper()
	FitsIn(t, what, out, report.MaxWidth)
}

// FitsIn fails t, naming what, for every line of out wider than width
// columns (but the exempt ones, as TooWide).
func FitsIn(t testing.TB, what, out string, width int) {
	t.Helper()
	if bad := tooWideIn(out, width); len(bad) > 0 {
		msg := ""
		for i, l := range bad {
			if i == 5 {
				msg += "\n…"
				break
			}
			msg += "\n" + strings.TrimRight(l, " ") + "   ← " + strconv.Itoa(report.Width(l))
		}
		t.Errorf("%s: %d lines wider than %d columns:%s", what, len(bad), width, msg)
	}
}

// step returns v moved one step in dir for a flag of type typ, or "" when the
// type has no smallest step or the step would overflow.
func step(t *testing.T, typ, v string, dir int) string {
	t.Helper()
	switch typ {
	case "int", "int64", "uint", "uint64", "int32":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("limit %q is not an integer", v)
		}
		if (dir > 0 && n == 1<<63-1) || (dir < 0 && n == -1<<63) {
			return ""
		}
		return strconv.FormatInt(n+int64(dir), 10)
	case "duration":
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("limit %q is not a duration", v)
		}
		return (d + time.Duration(dir)*time.Millisecond).String()
	case "float64":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("limit %q is not a number", v)
		}
		return fmt.Sprint(f + float64(dir)*1e-6*max(1, abs(f)))
	}
	return ""
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
