package cli

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/scenarios"
)

// runCode runs the lab in-process with args and no report, and returns its
// exit code and what it wrote to stderr.
func runCode(args ...string) (int, string) {
	code, _, stderr := runOutput(args...)
	return code, stderr
}

// runOutput is runCode with what the run printed on stdout too.
func runOutput(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(append(args, "--no-report"), &out, &errb)
	return code, out.String(), errb.String()
}

// TestEveryScenarioCanFail runs every scenario with the flags it declares
// make its checks fail, and requires exit 1: a scenario whose checks cannot
// fail proves nothing, so one without FailsWith fails this test.
func TestEveryScenarioCanFail(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			if len(s.FailsWith) == 0 {
				t.Fatal("no FailsWith: declare the flags under which this scenario's checks fail")
			}
			if code, stderr := runCode(append([]string{s.Name}, s.FailsWith...)...); code != ExitChecksFailed {
				t.Errorf("%s %s: exit %d, want %d; stderr: %s", s.Name, strings.Join(s.FailsWith, " "), code, ExitChecksFailed, stderr)
			}
		})
	}
}

// TestFlagExtremesRun drives every declared limit: each flag at its minimum
// and its maximum with the others at their defaults, all at their minimum,
// all at their maximum. Each run must finish with its checks' verdict (exit
// 0 or 1), never "cannot run" (3) or a usage error (2), and every line it
// prints must fit 100 columns (the width rule holds for every accepted
// value, not only the defaults TestOutputFits100Columns runs); one step
// beyond a limit must be refused with exit 2, in one line naming a flag.
func TestFlagExtremesRun(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
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
					if code, stderr := runCode(s.Name, arg); code != ExitUsage {
						t.Errorf("%s %s: exit %d, want %d (beyond the declared limit); stderr: %s", s.Name, arg, code, ExitUsage, stderr)
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
			for _, args := range runs {
				code, stdout, stderr := runOutput(append([]string{s.Name}, args...)...)
				if code != ExitOK && code != ExitChecksFailed {
					t.Errorf("%s %s: exit %d, want 0 or 1; stderr: %s", s.Name, strings.Join(args, " "), code, stderr)
				}
				requireFits(t, s.Name+" "+strings.Join(args, " "), stdout+stderr)
			}
		})
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
