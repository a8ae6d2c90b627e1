package report

import "strings"

// The verdict: how it follows from the checks.

// Passed reports whether at least one check was recorded and every recorded
// check held. A report with no checks has not passed: it judged nothing; nor
// has one with a check that was not exercised.
func (r *Report) Passed() bool {
	if len(r.checks) == 0 {
		return false
	}
	for _, c := range r.checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// The verdict's outcomes, each with its own symbol so that they differ
// without colour: an AFTER or EXPERIMENT that held or failed, a BEFORE whose
// failure was reproduced or was not.
const (
	VerdictPass          = "[PASS ✅]"
	VerdictFail          = "[FAIL ❌]"
	VerdictReproduced    = "[REPRODUCED 🧪]"
	VerdictNotReproduced = "[NOT REPRODUCED ❓]"
	VerdictNotExercised  = "[NOT EXERCISED 💤]"
)

// Verdict writes the verdict line: the outcome (see VerdictPass and its
// siblings), then a text. It follows from the checks, in this order:
//   - an invariant broke: FAIL, naming it (a BEFORE too: its failure is not
//     the one the course shows if it also breaks what must hold);
//   - a demonstrating check broke: fail, with the checks that broke (a
//     BEFORE's NOT REPRODUCED also names what it did reproduce);
//   - a demonstrating check was not exercised: NOT EXERCISED, with what did
//     not happen and what to change (the check's detail);
//   - otherwise pass (REPRODUCED for a BEFORE).
//
// A symbol at the end of either text is dropped: the outcome carries it.
func (r *Report) Verdict(pass, fail string) {
	outcome, text := r.judge(trimSymbol(pass), trimSymbol(fail))
	r.verdict = outcome + " " + text
	r.Section("Verdict")
	r.Line(wrapLine("VERDICT: "+r.verdict, verdictIndent))
}

// judge is the verdict's outcome and text (see Verdict).
func (r *Report) judge(pass, fail string) (outcome, text string) {
	var held, broken, brokenInvariants, idle []string
	var why string
	for _, c := range r.checks {
		switch {
		case c.Outcome == OutcomeNotExercised:
			if c.Role == RoleDemonstrates {
				idle = append(idle, c.Name)
				if why == "" {
					why = c.Detail
				}
			}
		case c.Role == RoleInvariant && !c.Passed:
			brokenInvariants = append(brokenInvariants, c.Name)
		case c.Role == RoleInvariant:
		case c.Passed:
			held = append(held, c.Name)
		default:
			broken = append(broken, c.Name)
		}
	}
	failed := VerdictFail
	if r.Kind == Before {
		failed = VerdictNotReproduced
	}
	switch {
	case len(r.checks) == 0:
		return failed, fail
	case len(brokenInvariants) > 0:
		return VerdictFail, fail + " — broken: " + strings.Join(brokenInvariants, "; ")
	case len(broken) > 0 && r.Kind == Before && len(held) > 0:
		return failed, fail + " — reproduced: " + strings.Join(held, "; ") +
			"; not reproduced: " + strings.Join(broken, "; ")
	case len(broken) > 0 && r.Kind == Before:
		return failed, fail + " — not reproduced: " + strings.Join(broken, "; ")
	case len(broken) > 0:
		return failed, r.leadOf(broken, fail) + " — failed: " + strings.Join(broken, "; ")
	case len(idle) > 0:
		return VerdictNotExercised, notExercisedText(r.Kind, held, idle, why)
	case r.Kind == Before:
		return VerdictReproduced, pass
	}
	return VerdictPass, pass
}

// leadOf is the headline of a verdict whose broken checks are broken: the
// lead they share (CheckLead), or the scenario's fail.
func (r *Report) leadOf(broken []string, fail string) string {
	lead := r.leads[broken[0]]
	for _, name := range broken {
		if r.leads[name] != lead {
			return fail
		}
	}
	if lead == "" {
		return fail
	}
	return lead
}

// notExercisedText is the verdict's text when demonstrating checks were
// not exercised and none broke: "nothing here exercised" only when no
// demonstrating check held, otherwise that the rest held (in a BEFORE:
// were reproduced; the checks above show which) and what was not
// exercised; then why (the first idle check's detail).
func notExercisedText(kind Kind, held, idle []string, why string) string {
	rest := "(the rest held)"
	if kind == Before {
		rest = "(the rest reproduced)"
	}
	switch {
	case len(held) > 0:
		return "NOT ALL EXERCISED " + rest + " — not exercised: " + strings.Join(idle, "; ") + ": " + why
	case len(idle) > 1:
		return "NOTHING HERE EXERCISED " + strings.Join(idle, "; ") + " (see its N/A checks): " + why
	}
	return "NOTHING HERE EXERCISED " + strings.Join(idle, "; ") + ": " + why
}

// invariantRank orders a BEFORE's checks as Checks prints them.
func invariantRank(c Check) int {
	if c.Role == RoleInvariant {
		return 1
	}
	return 0
}

// trimSymbol drops a verdict symbol a scenario put at the end of its text.
func trimSymbol(text string) string {
	text = strings.TrimSpace(text)
	for _, sym := range []string{"✅", "❌", "⚠️", "⚠"} {
		text = strings.TrimSpace(strings.TrimSuffix(text, sym))
	}
	return text
}
