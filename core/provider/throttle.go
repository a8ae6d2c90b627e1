package provider

import (
	"fmt"
	"sync"
	"time"
)

// Throttle is a downstream's capacity: it admits at most Capacity calls in
// any Window of scenario time and throttles the rest, as a provider
// recovering from an outage does (HTTP 429). The window slides: a call at t
// is admitted when fewer than Capacity admitted calls fall in (t-Window, t].
// Throttled calls do not count against the window. Every call, admitted or
// not, goes into its ledger, so a check reads what the downstream saw, never
// what the caller meant to send. Time comes only from the caller (the
// ScenarioClock), so a run throttles the same calls every time. Safe for
// concurrent use.
type Throttle struct {
	Capacity int
	Window   time.Duration

	mu    sync.Mutex
	calls []ThrottleCall
}

// ThrottleCall is one line of a Throttle's ledger.
type ThrottleCall struct {
	Seq       int
	At        time.Time
	Op        string // what the caller asked ("" when it did not say)
	Key       string
	Throttled bool
	InWindow  int // admitted calls already in the window when this one came
}

// NewThrottle returns a throttle admitting capacity calls per window; it
// panics on a capacity below 1 or a window that is not positive, which a
// flag's range refuses first.
func NewThrottle(capacity int, window time.Duration) *Throttle {
	if capacity < 1 || window <= 0 {
		panic(fmt.Sprintf("provider.NewThrottle(%d, %s): capacity and window must be positive", capacity, window))
	}
	return &Throttle{Capacity: capacity, Window: window}
}

// Admit records a call for key at scenario time at and reports whether the
// downstream accepts it (false: throttled).
func (t *Throttle) Admit(key string, at time.Time) bool { return t.AdmitOp("", key, at) }

// AdmitOp is Admit for a caller that says what it asks (op), which the
// ledger keeps: a downstream sees a status check and a verification alike.
func (t *Throttle) AdmitOp(op, key string, at time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	in := 0
	for _, c := range t.calls {
		if !c.Throttled && c.At.After(at.Add(-t.Window)) && !c.At.After(at) {
			in++
		}
	}
	call := ThrottleCall{Seq: len(t.calls) + 1, At: at, Op: op, Key: key, InWindow: in, Throttled: in >= t.Capacity}
	t.calls = append(t.calls, call)
	return !call.Throttled
}

// Calls returns a copy of the ledger.
func (t *Throttle) Calls() []ThrottleCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]ThrottleCall(nil), t.calls...)
}

// Throttled returns the ledger's throttled calls, in order.
func (t *Throttle) Throttled() []ThrottleCall {
	var out []ThrottleCall
	for _, c := range t.Calls() {
		if c.Throttled {
			out = append(out, c)
		}
	}
	return out
}

// Busiest is the most calls the ledger's admitted calls put in one window
// (every window ending at a call), and when that window ended: what the
// downstream had to carry at its worst. Zero for an empty ledger.
func (t *Throttle) Busiest() (n int, at time.Time) {
	calls := t.Calls()
	for _, c := range calls {
		if c.Throttled {
			continue
		}
		in := 0
		for _, d := range calls {
			if !d.Throttled && d.At.After(c.At.Add(-t.Window)) && !d.At.After(c.At) {
				in++
			}
		}
		if in > n {
			n, at = in, c.At
		}
	}
	return n, at
}

// Text says the capacity in words: "2 calls per 1m0s".
func (t *Throttle) Text() string {
	calls := "calls"
	if t.Capacity == 1 {
		calls = "call"
	}
	return fmt.Sprintf("%d %s per %s", t.Capacity, calls, t.Window)
}
