package workers

import (
	"strings"
	"testing"
)

// The conclusion follows the numbers, not the database's reputation: where
// a run's numbers contradict the lesson, it says what they show.
func TestConclusionFollowsTheNumbers(t *testing.T) {
	f := func(best, most int, bestGain, mostGain, batchGain float64) findings {
		return findings{batch: 25, first: 1, best: best, most: most, bestGain: bestGain, mostGain: mostGain, batchGain: batchGain}
	}
	tests := []struct {
		name     string
		postgres bool
		slow     bool // the handler waits (--handler-delay)
		f        findings
		want     []string // each a line of the conclusion, in order
		not      []string // in no line
	}{
		{"sqlite, one writer", false, false, f(1, 8, 1, 0.4, 6),
			[]string{"- Claims of 1: no worker count beat 1 worker; 8 workers reached 0.40× its messages/s.",
				"  More workers bought nothing.",
				"- Claims of 25 reached 6.0× the messages/s of claims of 1, with 1 worker.\n  Batching paid.",
				"- SQLite lets one writer in at a time"},
			[]string{"PostgreSQL", "did not pay"}},
		{"sqlite, workers slower", false, false, f(2, 8, 1.1, 0.3, 6),
			[]string{"- Claims of 1: 2 workers reached 1.10× the messages/s of 1 worker; 8, 0.30×.\n  More workers bought nothing."}, nil},
		{"sqlite, a slow handler: workers paid", false, true, f(8, 8, 3.5, 3.5, 2),
			[]string{"8 workers reached 3.50×", "More workers paid.", "- More workers paid on SQLite in this run"},
			[]string{"one writer in at a time", "busy machine"}},
		{"sqlite, a handler that does nothing: more workers looked faster", false, false, f(2, 8, 3.07, 2.17, 7.2),
			[]string{"2 workers reached 3.07×", "- More workers looked faster on SQLite in this run",
				"a bigger\n  --messages measures more steadily."},
			[]string{"one writer in at a time", "overlapped"}},
		{"postgres scales", true, false, f(8, 8, 3.2, 3.2, 4),
			[]string{"More workers paid.", "- PostgreSQL let the workers commit side by side"}, []string{"SQLite"}},
		{"postgres scales, then the server limits", true, false, f(4, 8, 1.97, 0.87, 9.2),
			[]string{"4 workers reached 1.97× the messages/s of 1 worker; 8, 0.87×.\n  More workers paid.",
				"- PostgreSQL let 4 workers commit side by side", "  with 8, this server's CPU or the WAL flush"}, nil},
		{"postgres does not scale", true, false, f(2, 8, 1.05, 0.9, 9),
			[]string{"- The workers did not scale on this server"}, []string{"side by side"}},
		{"batching slower", false, false, f(1, 8, 1, 0.5, 0.7),
			[]string{"Batching made the drain slower.", "- Batching did not pay in this run"}, nil},
		{"one worker count", false, false, findings{batch: 25, first: 2, best: 2, most: 2, bestGain: 1, mostGain: 1, batchGain: 5},
			[]string{"- Claims of 25 reached 5.0× the messages/s of claims of 1, with 2 workers."},
			[]string{"Claims of 1:", "one writer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := conclusion(backend{serial: !tt.postgres}, tt.slow, tt.f)
			text := strings.Join(lines, "\n")
			at := 0
			for _, want := range tt.want {
				i := strings.Index(text[at:], want)
				if i < 0 {
					t.Errorf("conclusion lacks %q after what came before:\n%s", want, text)
					continue
				}
				at += i + len(want)
			}
			for _, not := range tt.not {
				if strings.Contains(text, not) {
					t.Errorf("conclusion says %q:\n%s", not, text)
				}
			}
			for _, l := range lines {
				if n := len([]rune(l + " [measured]")); n > 100 {
					t.Errorf("%d columns with its mark: %q", n, l)
				}
			}
		})
	}
}
