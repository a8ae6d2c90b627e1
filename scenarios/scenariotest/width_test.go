package scenariotest

import (
	"strings"
	"testing"
)

// A line wider than the width is exempt when it is only a label (or an
// indent) and one of the lab's commands, however the lab was started; a
// command with prose after it is not, nor prose that names the lab.
func TestTooWideExemptsOnlyCommands(t *testing.T) {
	long := strings.Repeat("--flag ", 20) + "--last"
	exempt := []string{
		"  Try:    outboxlab governance-threshold " + long,
		"command:  go run . retry-with-dead-letter " + long,
		"  go run .. list " + long,
		"  '/home/ana/my lab/outboxlab' list " + long,
		"Every scenario, its pair and what it shows:  /usr/local/bin/outboxlab list " + long,
	}
	wide := []string{
		"  Pair:   outboxlab governance-threshold " + long + ", the BEFORE it fixes",
		"  Answers: outboxlab governance-threshold " + long + " (the BEFORE whose failure this contains)",
		"  outboxlab governance-threshold " + long + "  # a comment",
		"the lab, outboxlab, is named here in prose that goes on " + long,
		"  " + long + " outboxlab list",
	}
	got := TooWide(strings.Join(append(exempt, wide...), "\n"))
	if strings.Join(got, "\n") != strings.Join(wide, "\n") {
		t.Errorf("TooWide = %q,\nwant %q", got, wide)
	}
}
