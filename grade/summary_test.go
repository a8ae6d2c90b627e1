package grade

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/sched"
)

// TestFoldKeepsEveryDifferentLine folds a worker that retries a poison key
// without end: the identical rounds fold into one line that counts the
// status checks, and a round whose row change differs is never folded.
func TestFoldKeepsEveryDifferentLine(t *testing.T) {
	at := func(ms int) time.Time { return clock.Start.Add(time.Duration(ms) * time.Millisecond) }
	events := []sched.Event{{At: at(0), Who: "worker-1", What: "hello (incarnation 1)"}}
	round := func(ms int, change string) {
		events = append(events,
			sched.Event{At: at(ms), Who: "worker-1", What: "provider status PAY-003 (message 3) → 503 unavailable"},
			sched.Event{At: at(ms), Who: "worker-1", What: "message 3 PAY-003: Status " + change},
			sched.Event{At: at(ms), Who: "worker-1", What: "message 3 PAY-003: Status Pending→Processing"})
	}
	for i := range 6 {
		round(100*i, "Processing→Pending")
	}
	round(700, "Processing→DeadLettered") // one row change differs
	round(800, "Processing→Pending")

	if got := timelineLines(events, false); len(got) != len(events) {
		t.Fatalf("unfolded: %d lines for %d events", len(got), len(events))
	}
	folded := timelineLines(events, true)
	text := strings.Join(folded, "\n")
	if len(folded) != 1+3+1+6 {
		t.Errorf("folded into %d lines, want 11 (hello, one round, the fold, the last two rounds):\n%s", len(folded), text)
	}
	want := "  09:00:00.100Z  ⋮ ×5      PAY-003: 5 status checks → 503 unavailable (the 3 lines above, until\n" +
		"                           09:00:00.500Z)"
	if !slices.Contains(folded, want) {
		t.Errorf("no fold line %q in:\n%s", want, text)
	}
	for _, e := range events {
		if !strings.Contains(text, e.What) {
			t.Errorf("folding hid %q", e.What)
		}
	}
	if !strings.Contains(folded[len(folded)-5], "DeadLettered") {
		t.Errorf("the round that differs is not shown where it happened:\n%s", text)
	}
}

// TestSummaryGroupsChecks sums up three variations: the first failing check
// in full with every variation it failed in, the same check with another
// variation's numbers in its name counted once, the rest a line each.
func TestSummaryGroupsChecks(t *testing.T) {
	o := &Options{Day: Lookup("session-16"), Seed: 7, Variations: 2}
	m := newSumming(o)
	run := func(checks ...report.Check) *graded { return &graded{r: &sched.Run{}, checks: checks} }
	pass := func(name string) report.Check { return report.Check{Name: name, Passed: true} }
	fail := func(name, detail string) report.Check { return report.Check{Name: name, Detail: detail} }
	m.add(0, "defaults", run(pass("a"), fail("poison tried 3 times", "AttemptCount 4, want 3"), fail("K = 1 failures", "one")))
	m.add(1, "variation 1", run(pass("a"), pass("poison tried 3 times"), fail("K = 2 failures", "two")))
	m.add(2, "variation 2", run(fail("a", "broken"), fail("poison tried 3 times", "AttemptCount 5, want 3"),
		fail("protocol: done and exit 0 within the run's limits", "more than 100 provider calls for message 3")))
	s := m.finish()
	if s.Passed || s.Failed != 6 || s.InFull != 1 {
		t.Errorf("passed %v, %d failed, in full v%d; want false, 6, v1", s.Passed, s.Failed, s.InFull)
	}
	if s.First == nil || s.First.Name != "poison tried 3 times" || s.First.Detail != "AttemptCount 4, want 3" ||
		!slices.Equal(s.First.In, []string{"v1", "v3"}) {
		t.Fatalf("first failing %+v, want the poison's, v1's detail, in v1 and v3", s.First)
	}
	if len(s.Others) != 3 || !slices.Equal(s.Others[0].In, []string{"v1", "v2"}) || s.Others[1].Name != "a" ||
		!strings.HasPrefix(s.Others[2].Name, "protocol: done") {
		t.Errorf("others %+v, want K's (v1, v2), a (v3), then the limit reached, last", s.Others)
	}
	// A worker that stopped, or broke a protocol rule, is the cause of the rest.
	m = newSumming(o)
	m.add(0, "defaults", run(fail("every healthy message Processed once", "PAY-001 is Pending"),
		fail("the poison tried 3 times", "AttemptCount 0"), fail("a", "b")))
	m.add(1, "variation 1", run(fail("protocol: done and exit 0 within the run's limits", "worker-1 exited 1 without calling done")))
	if s := m.finish(); !strings.HasPrefix(s.First.Name, "protocol: done") || s.InFull != 2 ||
		s.Others[0].Name != "the poison tried 3 times" || s.Others[2].Name != "every healthy message Processed once" {
		t.Errorf("first %+v, others %+v: want the worker that exited (v2), the Day's checks, then the outcome", s.First, s.Others)
	}
	m.add(2, "variation 2", run(fail("protocol: one call at a time", "two calls")))
	if s := m.finish(); s.First.Name != "protocol: one call at a time" || s.InFull != 3 {
		t.Errorf("first %+v, want the protocol rule broken in v3", s.First)
	}
	lines := strings.Join(s.Lines(), "\n")
	for _, want := range []string{"First failing check (in v1, v3):", "        v1: AttemptCount 4, want 3",
		"  FAIL  K = 1 failures — v1–v2", "  FAIL  v2 variation 1"} {
		if !strings.Contains(lines, want) {
			t.Errorf("summary lacks %q:\n%s", want, lines)
		}
	}
}

// lockedBuffer is a buffer the progress line's goroutine may write to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestProgressOnlyOnItsWriter grades with and without a progress writer:
// the writer gets the variation and the calls so far and is cleared at the
// end; the report body is the same bytes either way.
func TestProgressOnlyOnItsWriter(t *testing.T) {
	grade := func(progress *lockedBuffer) string {
		o := &Options{Day: Lookup("session-16"), Seed: DefaultSeed, Variations: 1, Only: 2,
			TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: []string{okWorker}}
		if progress != nil {
			o.Progress = progress
		}
		rep, _ := gradeWith(t, o)
		return rep.Body()
	}
	var progress lockedBuffer
	with, without := grade(&progress), grade(nil)
	if with != without {
		t.Errorf("the progress line changed the report body")
	}
	p := progress.String()
	if !strings.Contains(p, "\r\x1b[Kgrading variation 2 of 2 · ") || !strings.HasSuffix(p, "\r\x1b[K") ||
		strings.Contains(p, "variation 1 of 2") {
		t.Errorf("progress %q: want variation 2 of 2 alone (--variation 2), cleared at the end", p)
	}
	if !strings.Contains(with, "Runs      v2 alone (--variation 2) of v1 the course's own run and 1 variation drawn from the seed") || strings.Contains(with, "Variation 1 of 2") {
		t.Errorf("--variation 2 ran more than variation 2:\n%s", with)
	}
}
