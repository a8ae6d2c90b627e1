package cli

import (
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

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func cannotRun(err error) error {
	if err == nil {
		return nil
	}
	return cannotRunError{err}
}

// exitCode derives the process exit code from the error a command returned.
// Errors that cobra raises itself (unknown command, bad arguments) are usage errors.
func exitCode(err error) int {
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
