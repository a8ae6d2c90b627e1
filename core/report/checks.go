package report

import "fmt"

// A check: its role, its outcome, how it is recorded and how its line reads.

// Role says what a check is for.
type Role string

// The roles of a check. A demonstrating check is the scenario's point: a
// BEFORE's failure, an AFTER's property, an EXPERIMENT's claim. An invariant
// must hold in both designs (a BEFORE that double-charges has broken one,
// whatever its failure).
const (
	RoleDemonstrates Role = "demonstrates"
	RoleInvariant    Role = "invariant"
)

// Outcome says what became of a check in one run.
type Outcome string

// The outcomes of a check: what it states held (for a BEFORE's
// demonstrating check, the failure was reproduced), it broke, or its
// precondition did not occur in this run, so it judged nothing.
const (
	OutcomeHeld         Outcome = "held"
	OutcomeBroken       Outcome = "broken"
	OutcomeNotExercised Outcome = "not_exercised"
)

// Check is one named safety check and the figure behind it. Passed is true
// only when the check held: a check that was not exercised has not passed.
type Check struct {
	Name    string  `json:"name"`
	Passed  bool    `json:"passed"`
	Detail  string  `json:"detail"`
	Role    Role    `json:"role"`
	Outcome Outcome `json:"outcome"`
	// OnNone, when set, says why this check holds on none of what it
	// judges (nothing closed, nothing sent) and why that is the run's
	// point rather than a check that judged nothing, which reads N/A.
	OnNone string `json:"on_none,omitempty"`
}

// outcomeOf is the outcome of a check that was exercised.
func outcomeOf(held bool) Outcome {
	if held {
		return OutcomeHeld
	}
	return OutcomeBroken
}

// Check records a demonstrating check that was exercised; Checks prints
// them all.
func (r *Report) Check(name string, passed bool, detail string) {
	r.Record(Check{Name: name, Detail: detail, Role: RoleDemonstrates, Outcome: outcomeOf(passed)})
}

// CheckLead is Check for a check whose failure the scenario's fail
// headline would misname: when the checks that broke are only those with a
// lead, and they share it, the verdict leads with it instead (a policy that
// held but gave up on a message that would have recovered did not "fail
// to hold").
func (r *Report) CheckLead(name string, passed bool, detail, lead string) {
	if r.leads == nil {
		r.leads = map[string]string{}
	}
	r.leads[name] = lead
	r.Check(name, passed, detail)
}

// Invariant records an invariant that was exercised: held says whether it
// held.
func (r *Report) Invariant(name string, held bool, detail string) {
	r.Record(Check{Name: name, Detail: detail, Role: RoleInvariant, Outcome: outcomeOf(held)})
}

// InvariantOnNone is Invariant for a run in which what the invariant
// judges never occurred: onNone says why holding on none is the point
// (Check.OnNone).
func (r *Report) InvariantOnNone(name string, held bool, detail, onNone string) {
	r.Record(Check{Name: name, Detail: detail, Role: RoleInvariant, Outcome: outcomeOf(held), OnNone: onNone})
}

// NotExercised records a demonstrating check whose precondition did not
// occur in this run; why says what did not happen and what to change so
// that it does (the verdict repeats it).
func (r *Report) NotExercised(name, why string) {
	r.Record(Check{Name: name, Detail: why, Role: RoleDemonstrates, Outcome: OutcomeNotExercised})
}

// Record records c as it is, with Passed set from its outcome; a check
// without a role demonstrates.
func (r *Report) Record(c Check) {
	if c.Role == "" {
		c.Role = RoleDemonstrates
	}
	c.Passed = c.Outcome == OutcomeHeld
	r.checks = append(r.checks, c)
}

// NoChecks is the line Checks writes for a report that recorded none: a run
// that judged nothing has not passed.
const NoChecks = "FAIL  no checks recorded: this run judged nothing, so it has not passed"

// BeforeChecks is the heading of every BEFORE's checks: they ask whether the
// naive design failed the way the course says it does.
const BeforeChecks = "Checks — is the failure reproduced?"

// BeforeInvariants is the heading of a BEFORE's invariants, printed apart
// from its failures: they must hold even in the naive design, so that a
// property that held never reads like the failure.
const BeforeInvariants = "Invariants — do they hold even here?"

// The marks of a check line. A BEFORE's checks pass when the failure was
// reproduced, so they say that rather than PASS, which would read as a
// design that held.
const (
	MarkPass          = "PASS"
	MarkFail          = "FAIL"
	MarkReproduced    = "REPRODUCED"
	MarkNotReproduced = "NOT REPRODUCED"
	MarkHolds         = "HOLDS"
	MarkBroken        = "BROKEN"
	MarkNotExercised  = "N/A"
)

// Mark is the word a check line of a kind's report starts with.
func Mark(kind Kind, c Check) string {
	switch {
	case c.Outcome == OutcomeNotExercised:
		return MarkNotExercised
	case kind == Before && c.Role == RoleInvariant && c.Passed:
		return MarkHolds
	case kind == Before && c.Role == RoleInvariant:
		return MarkBroken
	case kind == Before && c.Passed:
		return MarkReproduced
	case kind == Before:
		return MarkNotReproduced
	case c.Passed:
		return MarkPass
	}
	return MarkFail
}

// MarkPassed reports whether a check line's mark says the check held.
func MarkPassed(mark string) bool {
	return mark == MarkPass || mark == MarkReproduced || mark == MarkHolds
}

// Checks writes the recorded checks as a section, one line each marked PASS,
// FAIL or N/A. A BEFORE's demonstrating checks are marked REPRODUCED or NOT
// REPRODUCED under the one heading every BEFORE uses (BeforeChecks),
// whatever title it asks for, and its invariants HOLDS or BROKEN in a
// section of their own (BeforeInvariants).
func (r *Report) Checks(title string) {
	if r.Kind != Before {
		r.checkSection(title, r.checks)
		return
	}
	var failures, invariants []Check
	for _, c := range r.checks {
		if c.Role == RoleInvariant {
			invariants = append(invariants, c)
		} else {
			failures = append(failures, c)
		}
	}
	r.checkSection(BeforeChecks, failures)
	if len(invariants) > 0 {
		r.checkSection(BeforeInvariants, invariants)
	}
}

// checkSection writes one section of check lines.
func (r *Report) checkSection(title string, checks []Check) {
	r.Section(title)
	if len(checks) == 0 {
		r.Line("  " + NoChecks)
	}
	for _, c := range checks {
		r.Line(wrapLine(fmt.Sprintf("  %s  %s → %s", Mark(r.Kind, c), c.Name, c.Detail), checkIndent))
	}
}

// checkIndent and verdictIndent begin the continuation lines of a check or
// verdict line too wide for MaxWidth; BodyChecks and BodyVerdict join them
// back.
const (
	checkIndent   = "        "
	verdictIndent = "         "
)
