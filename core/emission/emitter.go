package emission

import (
	"context"
	"fmt"
	"time"
)

// Emitter delivers one entry to its provider. An error or a panic is an
// unexpected failure: the drain treats it as a failed result and carries on.
type Emitter interface {
	Emit(ctx context.Context, e Entry, now time.Time) (Result, error)
}

// Unexpected says how an emission went wrong outside the emitter's contract.
type Unexpected string

// The ways an emission can go unexpectedly wrong.
const (
	Expected        Unexpected = ""
	UnexpectedError Unexpected = "error"
	UnexpectedPanic Unexpected = "panic"
)

// SafeEmit calls em and turns an error or a panic into a failed result with
// a provider-neutral code, so that one bad entry never crashes the drain.
func SafeEmit(ctx context.Context, em Emitter, e Entry, now time.Time) (res Result, how Unexpected) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Kind: ResultFailed, Code: CodePanic, Message: fmt.Sprintf("emitter panicked: %v", r)}
			how = UnexpectedPanic
		}
	}()
	res, err := em.Emit(ctx, e, now)
	if err != nil {
		return Result{Kind: ResultFailed, Code: CodeUnexpectedError, Message: err.Error()}, UnexpectedError
	}
	return res, Expected
}
