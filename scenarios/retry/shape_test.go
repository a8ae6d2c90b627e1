package retry

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"outboxlab/core/report"
)

// Alike lines (the same but for times, keys and send numbers) condense to the
// first and one line naming the rest; two alike lines and different lines
// stay as they are.
func TestCondenseTimeline(t *testing.T) {
	var lines []string
	for i := 11; i <= 15; i++ {
		lines = append(lines, fmt.Sprintf("09:00:0%d.000Z  worker-1  NTF-0%d attempt 1/6 FAILED (503) → backoff 1 s", i-10, i))
	}
	lines = append(lines,
		"09:00:06.000Z  worker-1  NTF-011 attempt 2/6 FAILED (503) → backoff 2 s",
		"09:00:07.000Z  worker-1  NTF-012 attempt 2/6 FAILED (503) → backoff 2 s",
		"09:00:08.000Z  worker-1  NTF-013 attempt 3/6 FAILED (503) → backoff 4 s")
	got := condenseTimeline(lines)
	want := []string{lines[0],
		"               … and 4 lines alike, NTF-012 to NTF-015 (--verbose lists them)",
		lines[5], lines[6], lines[7]}
	if !slices.Equal(got, want) {
		t.Errorf("condenseTimeline =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWrapTimelineLine(t *testing.T) {
	long := "09:00:39.000Z  worker-2  NTF-002: send #16 failed (503) → sleeps 40 s HOLDING it: 49 s past its lease"
	got := strings.Split(wrapTimelineLine(long), "\n")
	// The event's text starts after the stamp and the worker's column, at
	// column 25 ("NTF-002: …"): the continuation goes under it, not under the worker.
	if len(got) != 2 || !strings.HasPrefix(got[1], strings.Repeat(" ", 25)+"lease") {
		t.Fatalf("wrapTimelineLine = %q, want two lines, the second continuing under the event's text", got)
	}
	for _, l := range got {
		if report.Width(l) > report.MaxWidth {
			t.Errorf("line %q is %d columns wide", l, report.Width(l))
		}
	}
	if joined := strings.Join(strings.Fields(strings.Join(got, " ")), " "); joined != strings.Join(strings.Fields(long), " ") {
		t.Errorf("wrapping lost words: %q", joined)
	}
}
