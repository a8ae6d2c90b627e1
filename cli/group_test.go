package cli

import (
	"fmt"
	"strings"
	"testing"

	"outboxlab/scenarios"
)

// TestEveryDayIsDeclared keeps the report folders where they were: each
// session-NN-* scenario registers Day NN, so its reports go to session-NN/,
// and every other scenario's go to its family's folder.
func TestEveryDayIsDeclared(t *testing.T) {
	days := 0
	for _, s := range scenarios.All() {
		var n int
		if _, err := fmt.Sscanf(s.Name, "session-%d-", &n); err == nil && strings.HasPrefix(s.Name, "session-") {
			days++
			if s.Day != n {
				t.Errorf("%s registers Day %d, want %d", s.Name, s.Day, n)
			}
			continue
		}
		if s.Group() != s.Family {
			t.Errorf("%s writes its reports to %s/, want its family's folder %s/", s.Name, s.Group(), s.Family)
		}
	}
	if days == 0 {
		t.Error("found no session-NN scenario: the Wassal days are not registered")
	}
}
