package emission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Step is one scripted emission: a result, or an unexpected error or panic.
type Step struct {
	Result Result
	Error  string // non-empty: Emit returns this error
	Panic  string // non-empty: Emit panics with this value
}

// Deliver, Fail, Defer, Pend, Reject, Throw and Crash build script steps.
func Deliver() Step { return Step{Result: Result{Kind: ResultDelivered}} }

// Fail is a failed result with a provider-neutral code and message.
func Fail(code, message string) Step {
	return Step{Result: Result{Kind: ResultFailed, Code: code, Message: message}}
}

// FailRetryable is a retryable-failure result with a provider-neutral code
// (a throttled provider): a failed attempt like Fail, persisted as RetryableFailure.
func FailRetryable(code, message string) Step {
	return Step{Result: Result{Kind: ResultRetryableFailure, Code: code, Message: message}}
}

// Defer is a deferred result: try again after after.
func Defer(after time.Duration) Step {
	return Step{Result: Result{Kind: ResultDeferred, RetryAfter: after}}
}

// Pend is a pending result: try again after after.
func Pend(after time.Duration) Step {
	return Step{Result: Result{Kind: ResultPending, RetryAfter: after}}
}

// Reject is a provider-returned terminal dead-letter.
func Reject(code, message string) Step {
	return Step{Result: Result{Kind: ResultDeadLetter, Code: code, Message: message}}
}

// Throw makes Emit return an error.
func Throw(message string) Step { return Step{Error: message} }

// Crash makes Emit panic.
func Crash(value string) Step { return Step{Panic: value} }

// Text says in a few words what the step does.
func (s Step) Text() string {
	switch {
	case s.Panic != "":
		return "panic"
	case s.Error != "":
		return "error"
	case s.Result.Code != "":
		return string(s.Result.Kind) + " (" + s.Result.Code + ")"
	}
	return string(s.Result.Kind)
}

// runOf describes the run of steps at the start of steps — one step repeated
// ("failed ×4") or two steps alternating ("(deferred, failed) ×3") — and
// returns how many steps it covers.
func runOf(steps []Step) (string, int) {
	same := 1
	for same < len(steps) && steps[same].Text() == steps[0].Text() {
		same++
	}
	if same > 1 {
		return fmt.Sprintf("%s ×%d", steps[0].Text(), same), same
	}
	pairs := 1
	for 2*pairs+1 < len(steps) && steps[2*pairs].Text() == steps[0].Text() && steps[2*pairs+1].Text() == steps[1].Text() {
		pairs++
	}
	if pairs > 1 {
		return fmt.Sprintf("(%s, %s) ×%d", steps[0].Text(), steps[1].Text(), pairs), 2 * pairs
	}
	return steps[0].Text(), 1
}

// repeats reports whether a last step is played again on every later call:
// a delivered or dead-lettered entry is never emitted again.
func (s Step) repeats() bool {
	k := s.Result.Kind
	return s.Panic != "" || s.Error != "" || k == ResultFailed || k == ResultRetryableFailure || k == ResultPending || k == ResultDeferred
}

// Call is one line of the scripted emitter's ledger. It holds the entry's
// key and metadata only, never its payload.
type Call struct {
	Seq     int
	At      time.Time
	EntryID int64
	Key     string
	Step    Step
}

// Scripted is a fake provider emitter: per entry key a script of steps, the
// last of which repeats forever, and a ledger of every call. Keys without a
// script are delivered. Safe for concurrent use.
type Scripted struct {
	mu       sync.Mutex
	scripts  map[string][]Step
	calls    []Call
	seen     map[string]int
	receipts map[string]string
}

// NewScripted returns an emitter that delivers everything until scripted.
func NewScripted() *Scripted {
	return &Scripted{scripts: map[string][]Step{}, seen: map[string]int{}, receipts: map[string]string{}}
}

// Script sets the steps for key; the last step repeats.
func (s *Scripted) Script(key string, steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[key] = steps
}

// ScriptText describes key's script: "failed (x) ×4, then delivered".
func (s *Scripted) ScriptText(key string) string {
	s.mu.Lock()
	steps := s.scripts[key]
	s.mu.Unlock()
	if len(steps) == 0 {
		return "delivered"
	}
	var parts []string
	for i := 0; i < len(steps); {
		part, n := runOf(steps[i:])
		parts = append(parts, part)
		i += n
	}
	if last := steps[len(steps)-1]; last.repeats() {
		parts[len(parts)-1] += " (forever)"
	}
	return strings.Join(parts, ", then ")
}

// Emit plays the next step of e's script.
func (s *Scripted) Emit(ctx context.Context, e Entry, now time.Time) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	s.mu.Lock()
	steps := s.scripts[e.Key]
	step := Deliver()
	if n := s.seen[e.Key]; len(steps) > 0 {
		step = steps[min(n, len(steps)-1)]
	}
	s.seen[e.Key]++
	s.calls = append(s.calls, Call{Seq: len(s.calls) + 1, At: now, EntryID: e.ID, Key: e.Key, Step: step})
	if step.Result.Kind == ResultDelivered && step.Panic == "" && step.Error == "" {
		if _, ok := s.receipts[e.Key]; !ok {
			s.receipts[e.Key] = fmt.Sprintf("RCPT-%04d", len(s.receipts)+1)
		}
	}
	s.mu.Unlock()
	switch {
	case step.Panic != "":
		panic(step.Panic)
	case step.Error != "":
		return Result{}, errors.New(step.Error)
	}
	return step.Result, nil
}

// Calls returns a copy of the ledger.
func (s *Scripted) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Receipt is the provider-side lookup a host makes before closing an
// incident: the receipt the provider issued when it accepted key, if it did.
func (s *Scripted) Receipt(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.receipts[key]
	return r, ok
}

// CallsFor counts the calls made for key.
func (s *Scripted) CallsFor(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[key]
}
