package report

import (
	"fmt"
	"strings"
)

// Disagreements lists where a report's header disagrees with its own body
// or with itself: the record's checks and verdict against the body's, the
// exit code against the checks, and the header's human lines (checks:,
// exit:, verdict:) against the record. A report as the lab wrote it has
// none; one edited by hand (a FAIL turned PASS in the header, an exit 1
// turned 0) has at least one. A body without a header, or a header without
// a record (an older report), has nothing to disagree with: nil.
func Disagreements(doc Doc) []string {
	r := doc.Info.Record
	if !doc.HasHeader || r == nil {
		return nil
	}
	var out []string
	say := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	body := BodyChecks(doc.Body)
	if len(body) == 1 && !body[0].Passed && "FAIL  "+body[0].Name == NoChecks {
		body = nil // the line a run that judged nothing prints
	}
	if len(body) != len(r.Checks) {
		say("the header records %d checks, the body shows %d", len(r.Checks), len(body))
	} else {
		for i, c := range r.Checks {
			b := body[i]
			switch {
			case words(c.Name) != words(b.Name):
				say("check %d is %q in the header, %q in the body", i+1, c.Name, b.Name)
			case c.Outcome != b.Outcome && (c.Outcome == OutcomeNotExercised || b.Outcome == OutcomeNotExercised):
				say("check %q is %s in the header, %s in the body", c.Name, outcomeWord(c.Outcome), outcomeWord(b.Outcome))
			case c.Passed != b.Passed:
				say("check %q %s in the header, %s in the body", c.Name, passWord(c.Passed), passWord(b.Passed))
			case c.Outcome != b.Outcome:
				say("check %q is %s in the header, %s in the body", c.Name, outcomeWord(c.Outcome), outcomeWord(b.Outcome))
			case (r.Kind == Before || b.Role == RoleInvariant) && c.Role != b.Role:
				// A BEFORE's body tells its invariants apart (HOLDS, BROKEN);
				// an AFTER's marks the two roles alike.
				say("check %q is %s in the header, %s in the body", c.Name, roleWord(c.Role), roleWord(b.Role))
			case words(c.Detail) != words(b.Detail):
				say("check %q reads %q in the header, %q in the body", c.Name, c.Detail, b.Detail)
			}
		}
	}
	if v := BodyVerdict(doc.Body); words(v) != words(r.Verdict) {
		say("the header's verdict is %q, the body's %q", r.Verdict, v)
	}
	passed := len(r.Checks) > 0 && ChecksPassed(r.Checks) == len(r.Checks)
	if r.Passed != passed {
		say("the header records passed %t, but %d of %d checks passed", r.Passed, ChecksPassed(r.Checks), len(r.Checks))
	}
	if want := exitFor(passed); r.ExitCode != want {
		say("the header records exit %d, but its checks give exit %d", r.ExitCode, want)
	}
	info := doc.Info
	if want := fmt.Sprintf("%d/%d passed", ChecksPassed(r.Checks), len(r.Checks)); info.Checks != "" && info.Checks != want {
		say("the header's checks line reads %q, its record %q", info.Checks, want)
	}
	if want := fmt.Sprint(r.ExitCode); info.Exit != "" && info.Exit != want {
		say("the header's exit line reads %s, its record %s", info.Exit, want)
	}
	if info.Verdict != "" && words(info.Verdict) != words(oneLine(r.Verdict)) {
		say("the header's verdict line reads %q, its record %q", info.Verdict, r.Verdict)
	}
	return out
}

// exitFor is the exit code a run whose checks passed (or not) ends with.
func exitFor(passed bool) int {
	if passed {
		return 0
	}
	return 1
}

// outcomeWord is an outcome in prose.
func outcomeWord(o Outcome) string { return strings.ReplaceAll(string(o), "_", " ") }

// roleWord is a role in prose.
func roleWord(r Role) string {
	if r == RoleInvariant {
		return "an invariant"
	}
	return "a demonstrating check"
}

func passWord(passed bool) string {
	if passed {
		return "passed"
	}
	return "failed"
}

// words is s with its runs of spaces made one: a check or verdict wrapped
// onto continuation lines reads back with single spaces.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }
