package grade

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/sched"
)

// Repeats folded on the terminal: a worker that retries a poison key
// without end leaves hundreds of the same lines in its timeline. The
// terminal shows the first round of a run of identical rounds (the same
// worker, the same call, the same row changes, only the time moving) and
// one line for the rest; a line that differs is never folded, so no row
// change is hidden. The report keeps every line.

// maxPeriod is the longest round of lines a fold looks for.
const maxPeriod = 8

// minRounds is how many identical rounds in a row make a fold.
const minRounds = 3

// timelineLines are the timeline's lines, as the report writes them, with
// identical rounds folded when fold is set.
func timelineLines(events []sched.Event, fold bool) []string {
	var out []string
	line := func(e sched.Event) {
		l := fmt.Sprintf("  %s  %-9s %s", clock.DayStamp(e.At), e.Who, e.What)
		out = append(out, report.WrapLine(l, strings.Repeat(" ", 27)))
	}
	for i := 0; i < len(events); {
		p, k := 0, 0
		if fold {
			p, k = rounds(events[i:])
		}
		if k < minRounds {
			line(events[i])
			i++
			continue
		}
		for _, e := range events[i : i+p] {
			line(e)
		}
		out = append(out, report.WrapLine(foldLine(events[i+p:i+k*p], p, k-1), strings.Repeat(" ", 27)))
		i += k * p
	}
	return out
}

// rounds finds the round that repeats most at the start of events: its
// length p and how many times k it comes in a row (k < minRounds: none).
func rounds(events []sched.Event) (p, k int) {
	for n := 1; n <= maxPeriod && 2*n <= len(events); n++ {
		c := 1
		for (c+1)*n <= len(events) && sameRound(events[:n], events[c*n:(c+1)*n]) {
			c++
		}
		if c >= minRounds && c*n > p*k {
			p, k = n, c
		}
	}
	return p, k
}

// sameRound reports whether two rounds are the same lines but for their time.
func sameRound(a, b []sched.Event) bool {
	return slices.EqualFunc(a, b, func(x, y sched.Event) bool { return x.Who == y.Who && x.What == y.What })
}

// foldLine is the line that stands for n more rounds of p lines: the
// status checks they made, by key and answer, and when.
func foldLine(rest []sched.Event, p, n int) string {
	var what []string
	count := map[string]int{}
	for _, e := range rest {
		call, ok := strings.CutPrefix(e.What, "provider status ")
		if !ok {
			continue
		}
		key, _, _ := strings.Cut(call, " ")
		_, answer, _ := strings.Cut(call, "→ ")
		k := key + ": %d status checks → " + answer
		if count[k] == 0 {
			what = append(what, k)
		}
		count[k]++
	}
	for i, k := range what {
		what[i] = fmt.Sprintf(k, count[k])
	}
	text := fmt.Sprintf("the %s above again, until %s", report.Plural(p, "line"), clock.DayStamp(rest[len(rest)-1].At))
	if len(what) > 0 {
		text = strings.Join(what, "; ") + fmt.Sprintf(" (the %s above, until %s)", report.Plural(p, "line"),
			clock.DayStamp(rest[len(rest)-1].At))
	}
	return fmt.Sprintf("  %s  %-9s %s", clock.DayStamp(rest[0].At), fmt.Sprintf("⋮ ×%d", n), text)
}

// Folded is body, the last Run's report body, as the terminal shows it
// with --full: each timeline's identical rounds folded (the report file
// keeps them).
func (o *Options) Folded(body string) string {
	for i := 0; i+1 < len(o.folds); i += 2 {
		body = strings.Replace(body, o.folds[i], o.folds[i+1], 1)
	}
	return body
}
