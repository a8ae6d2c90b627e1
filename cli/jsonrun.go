package cli

import (
	"outboxlab/core/changelog"
	"outboxlab/core/report"
)

// jsonRun is what --json prints: the run's result and, for a scenario that
// records its change log, the timeline's events and every row its designs'
// tables held at the end (each message, payment, partition or entry).
type jsonRun struct {
	report.Result
	Timeline []jsonEvent                  `json:"timeline,omitempty"`
	Rows     map[string][]changelog.Table `json:"rows,omitempty"` // by design, as the database held them at the end
}

// jsonEvent is one timeline event as the change log numbers it.
type jsonEvent struct {
	N      int    `json:"n"`
	Design string `json:"design"`
	At     string `json:"at"`
	Text   string `json:"text"`
}

// runJSON is out as --json prints it.
func runJSON(out outcome) jsonRun {
	run := jsonRun{Result: out.result}
	if len(out.log.Designs) == 0 {
		return run
	}
	for _, s := range out.log.Steps {
		run.Timeline = append(run.Timeline, jsonEvent{N: s.N, Design: s.Design, At: s.At, Text: s.Text})
	}
	run.Rows = out.log.State(len(out.log.Steps))
	return run
}
