package keyedlog

import (
	"time"

	"outboxlab/core/claim"
)

// EventKind names what happened to a record; Advanced is the claim
// engine's own idle step.
type EventKind = claim.EventKind

// The events the consumer, the replay tool and the listener report.
const (
	Applied      EventKind = "applied"       // the handler's change committed
	Duplicate    EventKind = "duplicate"     // already applied: skipped (idempotent consumer)
	Retrying     EventKind = "retrying"      // a failed attempt; the partition waits for the backoff
	DeadLettered EventKind = "dead-lettered" // attempts used up: set aside in DeadLetters
	Parked       EventKind = "parked"        // held back: set aside in ParkedMessages
	Paused       EventKind = "paused"        // attempts used up: the record stays at the head, its partition stops
	Held         EventKind = "held"          // a correlation id or key was added to the holds
	Published    EventKind = "published"     // a failure event was written with the dead letter
	Advanced               = claim.Advanced  // nothing due: the clock moved to the next backoff end
	Refused                = claim.Refused   // the consumer's claim on the partition was lost: nothing moved
	Resumed      EventKind = "resumed"       // a paused partition was resumed
	Released     EventKind = "released"      // a hold was released after a replay
	Redriven     EventKind = "redriven"      // a dead letter copied to the end of its partition
	ReplayFailed EventKind = "replay-failed" // a replayed record failed; the replay stopped there
)

// How a record reached the handler.
const (
	ViaLog    = "log"
	ViaReplay = "replay"
)

// Event is one line of a run's timeline.
type Event struct {
	At          time.Time
	Kind        EventKind
	Record      Record
	Via         string // ViaLog or ViaReplay, for records that reached the handler
	Attempt     int    // the attempt number, for records that reached the handler from the log
	MaxAttempts int
	Detail      string // the handler's detail, the error, the park reason, the event type
	Delay       time.Duration
	NextAttempt time.Time // retrying: when the record is due again; advanced: the new time
}
