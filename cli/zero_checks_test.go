package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// TestNoCheckHoldsOnNothing: a check that judged nothing reads N/A, never
// PASS (docs/CONTRACT.md). Each scenario runs where its checks are most
// likely to run out of things to judge: every declared limit at its minimum
// and its maximum, all at their minimum and all at their maximum (the runs
// of TestFlagExtremesRun), each switch flipped from its default, its
// FailsWith and its NotExercisedWith, and the runs in which a check was
// once found holding on nothing (zeroRegressions). A held check whose
// figure counts zero of what it judges (judgedNothing) fails the test,
// unless the check says why holding on none is the point (Check.OnNone,
// report.InvariantOnNone).
func TestNoCheckHoldsOnNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario at its extremes")
	}
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			pending := notYetFixed(s.Name)
			runs := zeroRuns(t, s)
			for i, run := range judgeAll(s, runs) {
				args := strings.Join(runs[i], " ")
				if run.err != "" {
					t.Errorf("%s %s: %s", s.Name, args, run.err)
					continue
				}
				if !run.run.reported {
					t.Errorf("%s %s: exit %d and no report written; stderr %s", s.Name, args, run.run.code, run.run.stderr)
					continue
				}
				for _, c := range run.run.res.Checks {
					what := ""
					if c.Outcome == report.OutcomeHeld && c.OnNone == "" {
						what = judgedNothing(c.Detail)
					}
					key := args + " → " + c.Name
					if _, ok := pending[key]; ok {
						pending[key] = what
					} else if what != "" {
						t.Errorf("%s %s: %q holds on nothing (%q in %q): record it N/A (NotExercised), "+
							"or say why none is the point (InvariantOnNone)", s.Name, args, c.Name, what, c.Detail)
					}
				}
			}
			for key, what := range pending {
				if what == "" {
					t.Errorf("%s %s no longer holds on nothing (or no longer runs): take it off notYetFixed", s.Name, key)
				}
			}
		})
	}
}

// judgeAll makes the runs of s with each of runs, three at a time, as
// runJudged does (shared: TestEveryScenarioCanFail and
// TestEveryScenarioCanBeNotExercised make two of them), and returns them in
// order. A scenario that waits (a handler delay, a child process) leaves
// the CPU to the others.
func judgeAll(s *scenarios.Scenario, runs [][]string) []*judgedOnce {
	out := make([]*judgedOnce, len(runs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 3)
	for i, args := range runs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i] = judgedRunOf(s, args...)
		}()
	}
	wg.Wait()
	return out
}

// notYetFixed are held checks found holding on nothing in scenarios this
// change does not own, reported for their owners to fix (record them N/A,
// or say why none is the point). Each entry is its flags, " → ", and the
// check's name; the test fails when one no longer holds on nothing, so the
// list only shrinks.
var notYetFixedList = map[string][]string{}

// notYetFixed is notYetFixedList's entries for the scenario called name,
// each mapped to "" until a run finds it holding on nothing.
func notYetFixed(name string) map[string]string {
	m := map[string]string{}
	for _, k := range notYetFixedList[name] {
		m[k] = ""
	}
	return m
}

// zeroRegressions are runs outside the generated ones in which a check was
// found holding on nothing, or a headline saying what its run did not do
// (TestEveryHeadlineIsTrue): a list flag the limits cannot reach.
var zeroRegressions = map[string][][]string{
	"poison-counter": {{"--messages", "6", "--lethal", "1,2,3,4,5,6", "--threshold", "1"},
		{"--lethal", "5", "--threshold", "1"}},
	"session-16-retry-with-dead-letter": {{"--flaky-key", "PAY-004:3"}},
}

// zeroRuns are the flags TestNoCheckHoldsOnNothing runs s with, each set
// once.
func zeroRuns(t *testing.T, s *scenarios.Scenario) [][]string {
	t.Helper()
	fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
	s.Bind(fs)
	var runs [][]string
	add := func(args ...string) {
		if !slices.ContainsFunc(runs, func(r []string) bool { return slices.Equal(r, args) }) {
			runs = append(runs, args)
		}
	}
	// The runs of scenariotest.ExtremesAt, which TestFlagExtremesRun makes.
	var allMin, allMax []string
	for _, l := range s.Limits() {
		lo, hi := "--"+l.Flag+"="+l.Min, "--"+l.Flag+"="+l.Max
		add(lo)
		add(hi)
		allMin, allMax = append(allMin, lo), append(allMax, hi)
	}
	if len(allMin) > 1 {
		add(allMin...)
		add(allMax...)
	}
	// A switch's extremes are its two values; the default is the golden's.
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" && !commonFlag(f.Name) {
			add(fmt.Sprintf("--%s=%t", f.Name, f.DefValue != "true"))
		}
	})
	add(s.FailsWith...)
	add(s.NotExercisedWith...)
	for _, r := range zeroRegressions[s.Name] {
		add(r...)
	}
	return runs
}

// commonFlag reports whether name is one of the flags every scenario has,
// which change what a run prints or keeps, not what it judges.
func commonFlag(name string) bool {
	switch name {
	case "json", "no-report", "keep-db", "schema", "brief", "show-sql", "step", "verbose", "help":
		return true
	}
	return false
}

// zeroFigures are the ways a check's figure says it counted nothing of
// what it judges, found by reading every held figure of these runs: a
// share of none ("0 of 0", "0/0", "0 / 0"), a count of none against none
// ("0 records for 0 events"), a list of what it judged with nothing in it
// ("panic (none)", "(DeadLettered: none)"), a figure that opens with none
// of what it is about ("0 closed", "no entry closed"), and prose saying so
// ("no … in this run"). A count of what went wrong is not among them: "0
// double charges" judged the payments and found none.
var zeroFigures = []*regexp.Regexp{
	regexp.MustCompile(`(?:^|[^\d.,])0 ?(?:of|/) ?0(?:[^\d.,]|$)`),
	regexp.MustCompile(`\b0 [\w-]+ for 0 [\w-]+`),
	regexp.MustCompile(`\((?:[\w ]+: )?none\)`),
	regexp.MustCompile(`^(?:0|no) (?:entry |entries |message |messages )?(?:closed|processed|sent|released|delivered|redriven)\b`),
	regexp.MustCompile(`\bno [\w -]+ in this run\b`),
}

// judgedNothing returns the part of detail that says the check counted
// nothing of what it judges, or "".
func judgedNothing(detail string) string {
	for _, re := range zeroFigures {
		if m := re.FindString(detail); m != "" {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

// TestJudgedNothing: the figures of the four checks found holding on
// nothing are caught; a figure that judged something and found none of
// what it looks for (0 double charges, 0 of 6 throttled) is not.
func TestJudgedNothing(t *testing.T) {
	for _, tc := range []struct {
		detail string
		want   bool
	}{
		{"0 of 0 healthy processed", true},
		{"0 closed, 0 of them without a matching status check", true},
		{"1 batch, 1 halt; 1 dead again; 0 of 0 parked still DeadLettered with their count", true},
		{"every error (GOV-003) and panic (none) in both modes persisted as a failed attempt", true},
		{"12 / 12 and 0 / 0 child processes", true},
		{"no emitter call errored or panicked in this run; every drain finished its run", true},
		{"0 records for 0 events; a second pass took 0", true},
		{"no DeadLettered row (both modes) carries a delivery time (DeadLettered: none)", true},
		{"no entry closed, none without a matching status check: 1 released, 0 dead again", true},
		{"0 dead-lettered", false},
		{"an incident closes only on a provider-side receipt 1 closed; 0 open: none", false},
		{"0 payments and 0 shipments with no order when idle", false},
		{"0 double charges", false},
		{"0 of 6 throttled, at most 4 in a window; 2 batches", false},
		{"10 of 10 healthy processed", false},
		{"6/6 entries identical", false},
		{"1 of 1 parked still DeadLettered with their count", false},
		{"0 remaining after 1 of at most 12 lifetimes", false},
		{"undercounts: none", false},
		{"0.0 of 0.5s", false},
	} {
		if got := judgedNothing(tc.detail) != ""; got != tc.want {
			t.Errorf("judgedNothing(%q) = %q, want a match %t", tc.detail, judgedNothing(tc.detail), tc.want)
		}
	}
}
