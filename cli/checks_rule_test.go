package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// judgedRun is one run of a scenario as these tests read it: its exit code,
// what it showed on an 80-column terminal, the result its report's record
// holds, and the body of the report it wrote (whole, and comparable).
type judgedRun struct {
	code           int
	stdout, stderr string
	reported       bool
	res            report.Result
	body, fullBody string
}

// judged holds the runs judgedRunOf made, one per scenario and flags: the
// flag-extremes, FailsWith, NotExercisedWith, no-zero, WHY and Next tests
// read the same runs. They share a test process (the Makefile's JUDGED,
// TestJudgedTestsShareAProcess), so each run is made once in make test.
var judged struct {
	sync.Mutex
	runs map[string]*judgedOnce
}

type judgedOnce struct {
	once sync.Once
	run  judgedRun
	err  string
}

// judgedRunOf runs s with args once per test binary for each scenario and
// flags (a later call waits for and reads the first one's run; none may
// change it), showing it on an 80-column terminal with a report in a
// temporary directory.
func judgedRunOf(s *scenarios.Scenario, args ...string) *judgedOnce {
	key := s.Name + "\x00" + strings.Join(args, "\x00")
	judged.Lock()
	if judged.runs == nil {
		judged.runs = map[string]*judgedOnce{}
	}
	j := judged.runs[key]
	if j == nil {
		j = &judgedOnce{}
		judged.runs[key] = j
	}
	judged.Unlock()
	j.once.Do(func() { j.run, j.err = makeJudgedRun(s, args...) })
	return j
}

// runJudged is judgedRunOf for a run that must have written its report.
func runJudged(t *testing.T, s *scenarios.Scenario, args ...string) judgedRun {
	t.Helper()
	j := judgedRunOf(s, args...)
	if j.err == "" && !j.run.reported {
		t.Fatalf("%s %v: exit %d and no report written; stderr %s", s.Name, args, j.run.code, j.run.stderr)
	}
	if j.err != "" {
		t.Fatal(j.err)
	}
	return j.run
}

// makeJudgedRun makes the run judgedRunOf shares. Its result is the record
// the report's header holds (the checks, verdict and metrics --json
// prints: the same Result, encoded once more), so that one run serves the
// width tests, which read the terminal, and the judging tests alike.
func makeJudgedRun(s *scenarios.Scenario, args ...string) (judgedRun, string) {
	dir, err := os.MkdirTemp("", "outboxlab-judged-")
	if err != nil {
		return judgedRun{}, err.Error()
	}
	defer os.RemoveAll(dir)
	stdout := &terminal{columns: 80}
	var stderr bytes.Buffer
	code := Main(append(append([]string{s.Name}, args...), "--report-dir", dir), stdout, &stderr)
	run := judgedRun{code: code, stdout: stdout.String(), stderr: stderr.String()}
	matches, _ := filepath.Glob(filepath.Join(dir, s.Group(), "*.txt"))
	if len(matches) == 0 {
		return run, ""
	}
	if len(matches) != 1 {
		return run, fmt.Sprintf("%s %v: %d reports written, want 1", s.Name, args, len(matches))
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		return run, err.Error()
	}
	header, full, _ := report.SplitHeader(string(raw))
	rec := report.ParseHeader(header).Record
	if rec == nil {
		return run, fmt.Sprintf("%s %v: exit %d, the report holds no record; stderr %s", s.Name, args, code, run.stderr)
	}
	run.reported, run.fullBody = true, full
	run.res = report.Result{Scenario: rec.Scenario, Kind: rec.Kind, Version: rec.Version, Params: rec.Params,
		Verdict: rec.Verdict, Passed: rec.Passed, Checks: rec.Checks, Metrics: rec.Metrics}
	run.body, _ = report.ComparableBody(string(raw))
	return run, ""
}

// TestEveryScenarioCanBeNotExercised runs every scenario with its
// NotExercisedWith flags and requires the verdict NOT EXERCISED, exit 1, and
// a demonstrating check whose outcome is not exercised; a scenario that
// declares none fails.
func TestEveryScenarioCanBeNotExercised(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			if len(s.NotExercisedWith) == 0 {
				t.Fatal("declares no NotExercisedWith: the flags under which its mechanism is not exercised")
			}
			if !s.Alone {
				t.Parallel()
			}
			run := runJudged(t, s, s.NotExercisedWith...)
			if run.code != cmdutil.ExitChecksFailed || run.res.Passed || !report.NotExercisedVerdict(run.res.Verdict) {
				t.Errorf("%v: exit %d, passed %v, verdict %q; want exit 1 and %s", s.NotExercisedWith, run.code,
					run.res.Passed, run.res.Verdict, report.VerdictNotExercised)
			}
			idle := slices.ContainsFunc(run.res.Checks, func(c report.Check) bool {
				return c.Outcome == report.OutcomeNotExercised && c.Role == report.RoleDemonstrates && !c.Passed && c.Detail != ""
			})
			if !idle {
				t.Errorf("%v: no demonstrating check was not exercised (with a why): %+v", s.NotExercisedWith, run.res.Checks)
			}
			if got := report.BodyVerdict(run.body); got != run.res.Verdict {
				t.Errorf("the body's verdict %q is not the result's %q", got, run.res.Verdict)
			}
		})
	}
}

// number is a number as a report prints it: digits, with thousands set off
// by commas and a decimal part (2,000,000; 67.00).
var number = regexp.MustCompile(`\d+(?:,\d{3})*(?:\.\d+)?`)

// storyNumbers are the numbers a body shows outside its checks, its WHY
// paragraphs and its verdict: in its tables and the lines of its story
// (setup, timeline, notes).
func storyNumbers(body string) map[string]bool {
	seen := map[string]bool{}
	inWhy := false
	for _, it := range report.Items(body) {
		var texts []string
		switch {
		case it.Table != nil:
			inWhy = false
			texts = append(texts, it.Table.Header...)
			for _, row := range it.Table.Rows {
				texts = append(texts, row...)
			}
		case strings.HasPrefix(it.Line, "  WHY "):
			inWhy = true
			continue
		case inWhy && strings.HasPrefix(it.Line, "        ") && strings.TrimSpace(it.Line) != "":
			continue
		case judgedSection(it.Section):
			inWhy = false
			continue
		default:
			inWhy = false
			texts = append(texts, it.Line)
		}
		for _, s := range texts {
			for _, n := range number.FindAllString(s, -1) {
				seen[n] = true
			}
		}
	}
	return seen
}

// judgedSection reports whether a section holds checks or the verdict.
func judgedSection(title string) bool {
	title = strings.ToLower(title)
	return strings.Contains(title, "checks") || strings.Contains(title, "invariants") || title == "verdict"
}

// whyLines are a body's WHY paragraphs (a "  WHY   " line and its
// continuation lines), each joined into one line.
func whyLines(body string) []string {
	var out []string
	in := false
	for _, it := range report.Items(body) {
		switch {
		case it.Table != nil:
			in = false
		case strings.HasPrefix(it.Line, "  WHY "):
			out, in = append(out, strings.TrimSpace(it.Line)), true
		case in && strings.HasPrefix(it.Line, "        ") && strings.TrimSpace(it.Line) != "":
			out[len(out)-1] += " " + strings.TrimSpace(it.Line)
		default:
			in = false
		}
	}
	return out
}

// strangeNumbers are the numbers of text that its run's story does not show.
func strangeNumbers(text string, story map[string]bool) []string {
	var out []string
	for _, n := range number.FindAllString(text, -1) {
		if !story[n] {
			out = append(out, n)
		}
	}
	return out
}

// TestEveryWhyIsFromItsRun: every number in a WHY line, and in a check's
// detail, appears in the same run's tables or story lines, at the defaults
// (the golden run), with FailsWith and with NotExercisedWith: a WHY computed
// from what its check read, never from what the flags meant to do.
func TestEveryWhyIsFromItsRun(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			runs := map[string]string{"defaults": sqliteDefault(t, s).body}
			for label, flags := range map[string][]string{"FailsWith": s.FailsWith, "NotExercisedWith": s.NotExercisedWith} {
				if len(flags) > 0 {
					runs[label+" "+strings.Join(flags, " ")] = runJudged(t, s, flags...).body
				}
			}
			var broken []string
			for label, body := range runs {
				story := storyNumbers(body)
				for _, why := range whyLines(body) {
					if odd := strangeNumbers(why, story); len(odd) > 0 {
						broken = append(broken, fmt.Sprintf("%s: %q shows %q, which its run's tables and rows do not", label, why, odd))
					}
				}
				for _, c := range report.BodyChecks(body) {
					if odd := strangeNumbers(c.Detail, story); len(odd) > 0 {
						broken = append(broken, fmt.Sprintf("%s: check %q → %q shows %q, which its run's tables and rows do not",
							label, c.Name, c.Detail, odd))
					}
				}
			}
			for _, b := range broken {
				t.Error(b)
			}
		})
	}
}

// TestWhyRuleReadsTheBody: the rule takes its numbers from the tables and
// the story lines, never from a WHY paragraph (wherever it stands) or a
// check, and reads a WHY paragraph whole across its continuation lines.
func TestWhyRuleReadsTheBody(t *testing.T) {
	body := "Demo\n====\nLog       8 orders, 2,000,000 ms budget\n  WHY   a story WHY says 7\n\n## Timeline\n\n" +
		"09:00:00.602Z  attempt 3/3\n┌──────┬─────┐\n│ Hold │ ms  │\n├──────┼─────┤\n│ long │ 135 │\n└──────┴─────┘\n\n" +
		"## Safety checks\n\n  PASS  bounded → 3 / 3 attempts, 451 s\n  WHY   the lease of 10 min outlasts every hold\n" +
		"        (the longest took 135 s) over 2,000,000 ms, 24 h later\n\n## Verdict\n\nVERDICT: [PASS ✅] 99\n"
	story := storyNumbers(body)
	for _, n := range []string{"8", "2,000,000", "09", "00.602", "3", "135"} {
		if !story[n] {
			t.Errorf("the story lacks %s: %v", n, story)
		}
	}
	for _, n := range []string{"7", "10", "451", "24", "99"} {
		if story[n] {
			t.Errorf("the story has %s, which only a WHY, a check or the verdict shows", n)
		}
	}
	whys := whyLines(body)
	if len(whys) != 2 || whys[1] != "WHY   the lease of 10 min outlasts every hold (the longest took 135 s) over 2,000,000 ms, 24 h later" {
		t.Fatalf("whyLines = %q", whys)
	}
	if got := strangeNumbers(whys[1], story); !slices.Equal(got, []string{"10", "24"}) {
		t.Errorf("strangeNumbers = %q, want [10 24]", got)
	}
	if got := strangeNumbers(report.BodyChecks(body)[0].Detail, story); !slices.Equal(got, []string{"451"}) {
		t.Errorf("the check's strange numbers = %q, want [451]", got)
	}
}
