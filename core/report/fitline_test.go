package report

import (
	"strings"
	"testing"
)

// A line too wide for MaxWidth, from an extreme but legal value, is wrapped
// under its text; a line that fits is untouched (the goldens hold them), and
// a marked line keeps its marker on every piece, so compare skips all of it.
func TestLineWrapsOnlyWhatIsTooWide(t *testing.T) {
	fits := "Retries   failed attempt n waits 1s × 2^(n-1), capped at 1m0s; deferrals wait what the emitter asks"
	wide := "Retries   failed attempt n waits 24h0m0s × 2^(n-1), capped at 24h0m0s; deferrals wait what the emitter asks"
	stamp := "09:00:00.102Z+102d  GOV-001  failed (provider.unavailable) → Failed 103/100, past the threshold (+86400000 ms)"
	twoWords := "Demo cap  none: the dead-letter exit ends every retry at MaxAttempts (--retry-cap applies to the naive loop)"
	measured := "Speed-up: against 16 workers with the same claim size; × ceiling: against the raw ceiling; 12.5× " + MeasuredMarker
	r := New("t", Experiment)
	for _, l := range []string{fits, wide, stamp, twoWords, measured} {
		r.Line(l)
	}
	got := strings.Split(strings.TrimSuffix(r.Body(), "\n"), "\n")
	want := []string{
		fits,
		"Retries   failed attempt n waits 24h0m0s × 2^(n-1), capped at 24h0m0s; deferrals wait what the",
		"          emitter asks",
		"09:00:00.102Z+102d  GOV-001  failed (provider.unavailable) → Failed 103/100, past the threshold",
		"                             (+86400000 ms)", // under the event's text, past its key
		"Demo cap  none: the dead-letter exit ends every retry at MaxAttempts (--retry-cap applies to the",
		"          naive loop)", // under a label of two words, as under one
		"Speed-up: against 16 workers with the same claim size; × ceiling: against the raw " + MeasuredMarker,
		"    ceiling; 12.5× " + MeasuredMarker,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("body:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range got {
		if Width(l) > MaxWidth {
			t.Errorf("%d columns: %q", Width(l), l)
		}
	}
}
