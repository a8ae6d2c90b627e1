package claim

import (
	"time"

	"outboxlab/core/clock"
)

// EventKind names what happened to a claimed row or to a consumer's step.
// Families add their own kinds; these two every family reports alike.
type EventKind string

// The kinds the engine itself produces.
const (
	Refused  EventKind = "refused"  // a transition refused: the claim was lost
	Advanced EventKind = "advanced" // nothing claimable: the clock moved to the next due time
)

// WakeupSlack is how far past a due time or lease end an idle step moves the
// clock: the first moment the row is surely due.
const WakeupSlack = time.Millisecond

// Advance is the idle step every consumer takes when nothing is due: it moves
// clk to WakeupSlack past due and returns the new time.
func Advance(clk *clock.ScenarioClock, due time.Time) time.Time {
	return clk.AdvanceTo(due.Add(WakeupSlack))
}
