package workers

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// Every number a check's detail (or a not-exercised check's why) gives is
// one the run printed outside its checks and verdict: in its setup, its
// tables or its rows, so that a reader can find where it came from. Held at
// the defaults, with FailsWith and with NotExercisedWith.
func TestEveryNumberInADetailIsInTheRun(t *testing.T) {
	s := scenarios.Lookup(throughputName)
	number := regexp.MustCompile(`\d+(\.\d+)?`)
	for _, args := range [][]string{nil, s.FailsWith, s.NotExercisedWith} {
		t.Run(caseName(args), func(t *testing.T) {
			o := parse(t, args...)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			r, err := o.Run(context.Background(), scenarios.Env{Dir: dir, Location: filepath.Join(dir, "outbox.db")})
			if err != nil {
				t.Fatal(err)
			}
			shown := map[string]bool{}
			section := ""
			for _, l := range strings.Split(r.Body(), "\n") {
				if strings.HasPrefix(l, "## ") {
					section = l
					continue
				}
				if section == "## Checks" || section == "## Verdict" || strings.HasSuffix(l, report.MeasuredMarker) {
					continue
				}
				for _, n := range number.FindAllString(l, -1) {
					shown[n] = true
				}
			}
			for _, c := range r.Result().Checks {
				for _, n := range number.FindAllString(c.Detail, -1) {
					if !shown[n] {
						t.Errorf("%s: %s gives %s, which the run printed nowhere else", c.Outcome, c.Name, n)
					}
				}
			}
		})
	}
}
