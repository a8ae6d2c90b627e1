package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// TestEveryRunSaysWhatToTryNext: every scenario declares its Next, every
// declared Next belongs to a scenario, and each Try line gets the verdict it
// announces when it is run.
func TestEveryRunSaysWhatToTryNext(t *testing.T) {
	var names []string
	for _, s := range scenarios.All() {
		names = append(names, s.Name)
	}
	for _, name := range scenarios.NextDeclaredFor() {
		if !slices.Contains(names, name) {
			t.Errorf("a Next is declared for %q, which is not a scenario", name)
		}
	}
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			n, ok := s.Next()
			if !ok {
				t.Fatal("no Next: declare it in the family's next.go (scenarios.DeclareNext)")
			}
			if len(n.Try) == 0 || n.Shows == "" || n.Course == "" || n.Verdict == "" {
				t.Fatalf("an incomplete Next: %+v", n)
			}
			res := runJudged(t, s, n.Try...).res // often the FailsWith run, made once
			if !strings.HasPrefix(res.Verdict, n.Verdict+" ") {
				t.Errorf("%s %s: verdict %q, but its Next line announces %s", s.Name, strings.Join(n.Try, " "), res.Verdict, n.Verdict)
			}
		})
	}
}

// TestNextEndsTheReport: a run's report ends with its Next section, which
// names the pair, the flag to try with its announced verdict, and the course.
func TestNextEndsTheReport(t *testing.T) {
	s := scenarios.Lookup("session-16-poison-message-retried-forever")
	body := sqliteDefault(t, s).body
	i := strings.LastIndex(body, "\n## ")
	if i < 0 || !strings.HasPrefix(body[i:], "\n## "+scenarios.NextTitle+"\n") {
		t.Fatalf("the report's last section is not %q:\n%s", scenarios.NextTitle, body[max(i, 0):])
	}
	for _, want := range []string{
		"  Pair:   outboxlab session-16-retry-with-dead-letter, the AFTER that fixes it\n",
		"  Try:    outboxlab session-16-poison-message-retried-forever --batch 1\n",
		"→ [REPRODUCED 🧪] a claim of one",
		"  Course: Wassal Day 16",
	} {
		if !strings.Contains(body[i:], want) {
			t.Errorf("the Next section lacks %q:\n%s", want, body[i:])
		}
	}
}

// TestNextLeadsOn: every scenario's Next is computed from its run. Run with
// its declared Try flags, it never suggests them again (it suggests its
// defaults); the declared Try is never the defaults themselves; each
// Day's AFTER leads to the next Day's BEFORE, the last Day's to grade; each
// scenario with a starting worker leads to exercise and grade for its Day.
// The runs are runJudged's (the Try run is often the FailsWith run).
func TestNextLeadsOn(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			n, ok := s.Next()
			if !ok {
				t.Fatal("no Next")
			}
			next := nextSection(runJudged(t, s, n.Try...).body)
			tried := "  Try:    outboxlab " + s.Name + " " + strings.Join(n.Try, " ")
			if strings.Contains(next, tried) {
				t.Errorf("run with %v, its Next suggests them again:\n%s", n.Try, next)
			}
			if !strings.Contains(next, "  Try:    outboxlab "+s.Name+"\n") {
				t.Errorf("run with its Try flags, its Next does not lead to its defaults:\n%s", next)
			}
			fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
			s.Bind(fs)
			if scenarios.InEffect(n.Try, scenarioParams(fs)) {
				t.Errorf("the declared Try %v is the scenario's defaults", n.Try)
			}
			for _, want := range leadOn(s) {
				if !strings.Contains(next, want) {
					t.Errorf("its Next lacks %q:\n%s", want, next)
				}
			}
		})
	}
}

// leadOn are the lines a scenario's Next must hold beside its Try.
func leadOn(s *scenarios.Scenario) []string {
	var want []string
	if s.Kind == report.After && s.Day > 0 {
		then := ""
		for _, o := range scenarios.All() {
			if o.Day == s.Day+1 && o.Kind == report.Before {
				then = "  Then:   outboxlab " + o.Name + ", Day "
				break
			}
		}
		switch {
		case then != "":
			want = append(want, then)
		case cmdutil.WorkerDay(s) == "":
			// The lab's own Day 18 has no graded Day yet (issue 44's second
			// part): its AFTER ends the Days, and Day 17's leads to grade.
		default:
			want = append(want, "  Grade:  outboxlab grade ") // the last Day leads to grade
		}
	}
	if day := cmdutil.WorkerDay(s); day != "" {
		want = append(want, "  Build:  outboxlab exercise "+day+" ", "  Grade:  outboxlab grade "+day+" -- ")
	}
	return want
}

// nextSection is a body's Next section, from its title on.
func nextSection(body string) string {
	i := strings.LastIndex(body, "\n## "+scenarios.NextTitle+"\n")
	if i < 0 {
		return ""
	}
	return body[i:]
}

// TestInEffect: a Try flag is in effect when the run has that value, in
// each way a Try spells it.
func TestInEffect(t *testing.T) {
	params := []report.Param{{Name: "dead-letter", Value: "false", Default: "true"},
		{Name: "batch", Value: "1", Default: "10"}, {Name: "provider-fixed", Value: "true", Default: "true"}}
	for _, tc := range []struct {
		try  []string
		want bool
	}{
		{[]string{"--dead-letter=false"}, true},
		{[]string{"--dead-letter=true"}, false},
		{[]string{"--batch", "1"}, true},
		{[]string{"--batch", "3"}, false},
		{[]string{"--provider-fixed"}, true},
		{[]string{"--batch", "1", "--dead-letter=false"}, true},
		{[]string{"--batch", "1", "--dead-letter=true"}, false},
		{[]string{"--unknown", "1"}, false},
	} {
		if got := scenarios.InEffect(tc.try, params); got != tc.want {
			t.Errorf("InEffect(%v) = %t, want %t", tc.try, got, tc.want)
		}
	}
}
