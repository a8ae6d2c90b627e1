package emission

import (
	"fmt"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
)

// Mode is how a drain selects entries and persists their transitions.
type Mode string

// The two drain modes. Both apply the same threshold policy.
const (
	// StoreMode is the plain provider-neutral drain (IGovernanceOutboxStore):
	// it selects due entries and writes by Id, so it assumes a single drainer.
	StoreMode Mode = "store"
	// ClaimMode is the claim/lease drain (IGovernanceOutboxClaimStore): it
	// claims entries with a lease and a fencing token, and every write is
	// checked against that claim.
	ClaimMode Mode = "claim"
)

// Defaults of Config.
const (
	DefaultLease = claim.DefaultLease
	DefaultBatch = 10
)

// Config configures a Drain.
type Config struct {
	Options Options         // resolved (validated) by NewDrain
	Backoff backoff.Backoff // delay before the retry after failed attempt n
	Mode    Mode            // StoreMode when empty
	Owner   string          // the drainer's name in claims and logs; "drain" when empty
	Lease   time.Duration   // claim mode: how long a claim owns an entry; DefaultLease when zero
	Batch   int             // entries per pass; DefaultBatch when zero
	// Unfenced makes claim-mode writes keyed by Id alone, without the claim
	// check: the BEFORE design, kept to show why the check exists.
	Unfenced bool
}

// Drain emits due governance entries and persists what the threshold policy decides.
type Drain struct {
	cfg       Config
	policy    Policy
	store     *Store
	emitter   Emitter
	clock     *clock.ScenarioClock
	observers []func(Event)
}

// NewDrain resolves cfg.Options, which is where they are validated: a bad
// option is an *OptionError and no drain is returned.
func NewDrain(cfg Config, store *Store, em Emitter, clk *clock.ScenarioClock) (*Drain, error) {
	opts, err := cfg.Options.Resolve()
	if err != nil {
		return nil, fmt.Errorf("resolve governance outbox options: %w", err)
	}
	cfg.Options = opts
	if cfg.Mode == "" {
		cfg.Mode = StoreMode
	}
	if cfg.Owner == "" {
		cfg.Owner = "drain"
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	return &Drain{cfg: cfg, policy: Policy{Options: opts, Backoff: cfg.Backoff}, store: store, emitter: em, clock: clk}, nil
}

// Observe registers fn to be called, in order and synchronously, with every event.
func (d *Drain) Observe(fn func(Event)) { d.observers = append(d.observers, fn) }

// Policy returns the threshold policy the drain applies.
func (d *Drain) Policy() Policy { return d.policy }

// Config returns the drain's configuration, defaults filled in.
func (d *Drain) Config() Config { return d.cfg }

// EventKind names what happened in a pass; Refused and Advanced are the
// claim engine's own.
type EventKind = claim.EventKind

// The events of a pass.
const (
	Claimed  EventKind = "claimed"      // claim mode: an entry was claimed
	Handled  EventKind = "handled"      // an entry was emitted and its transition persisted
	Refused            = claim.Refused  // an entry was emitted but its transition was refused: the claim was lost
	Advanced           = claim.Advanced // nothing due: the clock moved to the next due time
)

// Event is one line of a drain's timeline.
type Event struct {
	Kind       EventKind
	At         time.Time // when it happened (for Handled and Refused: when the write was attempted)
	Drainer    string
	Mode       Mode
	Entry      Entry // the row as selected or claimed; never print its Payload
	Token      int64 // claim mode: the claim's token
	LeaseUntil time.Time
	EmittedAt  time.Time
	Result     Result
	Unexpected Unexpected
	Transition Transition
	Err        string    // Refused: why
	Due        time.Time // Advanced: the due time that woke the drain
}

// PassResult is what one pass did.
type PassResult struct {
	Selected int
	Events   []Event
	Idle     bool // nothing due and nothing waiting on a retry time or a lease
}
