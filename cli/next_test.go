package cli

import (
	"slices"
	"strings"
	"testing"

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
