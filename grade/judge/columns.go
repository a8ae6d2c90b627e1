package judge

import (
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
)

// The columns a change must write (docs/grade-protocol.md sections 6 and
// 7.1): judged where they must be written, not only where they were.

// ColumnsWritten: a payment's update writes UpdatedAtUtc = now; a message
// that becomes Processed writes ProcessedAtUtc = now, one that becomes
// DeadLettered DeadLetteredAtUtc = now, in the same change. A column left
// at its old value fails here even when the timestamp check (which judges
// the times that were written) has nothing to say.
func (j *Judge) ColumnsWritten() {
	var problems []string
	required := 0
	for c, at := range j.TurnUpdates() {
		col, why := requiredTime(c)
		if col == "" {
			continue
		}
		required++
		if got, _ := c.NewValue(col); got != clock.ISO(at) {
			state := "left at " + changelog.OrDash(got)
			if c.Changed(col) {
				state = "set to " + changelog.OrDash(got)
			}
			problems = append(problems, fmt.Sprintf("%s %d %s at %s with %s %s, want %s",
				c.Table, c.RowID, why, clock.Stamp(at), col, state, clock.ISO(at)))
		}
	}
	j.AddExercised("UpdatedAtUtc, ProcessedAtUtc and DeadLetteredAtUtc written with their change", required > 0, "no payment or message settled",
		problems, fmt.Sprintf("%s, each with the turn's now", report.Plural(required, "settling change")))
}

// requiredTime is the time column change c must write, and what c did
// ("" when it requires none).
func requiredTime(c changelog.Change) (col, why string) {
	switch c.Table {
	case "Payments":
		if c.Changed("Status") || c.Changed("ProviderTransactionId") {
			status, _ := c.NewValue("Status")
			return "UpdatedAtUtc", "updated to " + status
		}
	case "OutboxMessages":
		status, _ := c.NewValue("Status")
		switch {
		case !c.Changed("Status"):
		case status == "Processed":
			return "ProcessedAtUtc", "became Processed"
		case status == "DeadLettered":
			return "DeadLetteredAtUtc", "became DeadLettered"
		}
	}
	return "", ""
}
