package cmdutil

import (
	"context"
	"errors"
	"fmt"
)

// The exit codes of every command (docs/CONTRACT.md).
const (
	ExitOK           = 0 // the run happened and every check held
	ExitChecksFailed = 1 // the run happened and a check failed; the report is still written
	ExitUsage        = 2 // bad flag, bad value, failed validation
	ExitCannotRun    = 3 // the run could not happen: database, report directory, ...
)

// ErrChecksFailed is returned after a run whose report has been printed and
// written, when at least one of its checks failed.
var ErrChecksFailed = errors.New("checks failed")

// usageError is a problem with what the user typed.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// cannotRunError is a problem with the machine: the run could not happen.
type cannotRunError struct{ err error }

func (e cannotRunError) Error() string { return e.err.Error() }
func (e cannotRunError) Unwrap() error { return e.err }

// interruptedError is a run that SIGINT or SIGTERM stopped: exit 3, like
// every run that could not happen, in one line that says what was finished.
type interruptedError struct{ err error }

func (e interruptedError) Error() string { return e.err.Error() }
func (e interruptedError) Unwrap() error { return e.err }

// Interrupted is the error of an interrupted run; the text says what it had
// finished ("<scenario> interrupted; no report was written").
func Interrupted(format string, args ...any) error {
	return cannotRunError{interruptedError{fmt.Errorf(format, args...)}}
}

// AfterInterrupt is the error a command ends with when a signal cancelled
// ctx: every interruption exits 3 (docs/CONTRACT.md). An error that already
// says the command was interrupted, or could not run, stands; a command that
// finished anyway (the signal came as it ended) says so; anything else (a
// scenario that found the context gone and said only that) is told as an
// interruption with it.
func AfterInterrupt(ctx context.Context, err error) error {
	var cr cannotRunError
	switch {
	case ctx.Err() == nil:
		return err
	case errors.As(err, &cr):
		return err
	case err == nil, errors.Is(err, ErrChecksFailed):
		return Interrupted("interrupted as the command finished; what it printed and wrote is complete")
	case errors.Is(err, context.Canceled):
		return Interrupted("interrupted before anything was finished")
	}
	return Interrupted("interrupted; %v", err)
}

func Usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Usage marks err as a problem with what the user typed (exit 2).
func Usage(err error) error { return usageError{err} }

func CannotRun(err error) error {
	if err == nil {
		return nil
	}
	return cannotRunError{err}
}

// ExitCode derives the process exit code from the error a command returned.
// Errors that cobra raises itself (unknown command, bad arguments) are usage errors.
func ExitCode(err error) int {
	var cr cannotRunError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrChecksFailed):
		return ExitChecksFailed
	case errors.As(err, &cr):
		return ExitCannotRun
	default:
		return ExitUsage
	}
}
