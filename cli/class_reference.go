package cli

import (
	"fmt"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// reference returns the reference for s's scenario: the newest of them.
func reference(s submission, refs []submission) *submission {
	var best *submission
	for i := range refs {
		r := &refs[i]
		if scenarioOf(*r) != scenarioOf(s) {
			continue
		}
		if best == nil || r.Doc.Info.Started.After(best.Doc.Info.Started) {
			best = r
		}
	}
	return best
}

// refDifference says how s differs from its scenario's reference: the
// flags set otherwise, and the checks whose result or figure is not the reference's.
func refDifference(s submission, refs []submission) string {
	ref := reference(s, refs)
	if ref == nil {
		return "no reference for this scenario"
	}
	var parts []string
	ra, rb := ref.Doc.Info.Record, s.Doc.Info.Record
	if ra != nil && rb != nil {
		want := map[string]string{}
		for _, p := range ra.Params {
			want[p.Name] = p.Value
		}
		for _, p := range rb.Params {
			if v, ok := want[p.Name]; ok && v != p.Value {
				parts = append(parts, fmt.Sprintf("--%s %s (reference %s)", p.Name, cmdutil.Show(p.Value), cmdutil.Show(v)))
			}
		}
	}
	byName := map[string]report.Check{}
	for _, c := range ref.Checks {
		byName[c.Name] = c
	}
	differ := 0
	for _, c := range s.Checks {
		if r, ok := byName[c.Name]; !ok || r != c {
			differ++
		}
	}
	if n := len(ref.Checks) - (len(s.Checks) - differ); differ > 0 || n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d checks differ", max(differ, n), len(ref.Checks)))
	}
	if len(parts) == 0 {
		return "same as the reference"
	}
	return strings.Join(parts, "; ")
}
