//go:build !linux

package workerproc

import "errors"

// Sandboxed needs bubblewrap, which is Linux's: elsewhere the worker cannot
// be sandboxed, and a grade asked to sandbox it does not run.
func (c Command) Sandboxed(run string) (Command, error) {
	return Command{}, CanSandbox()
}

// CanSandbox says why workers cannot be sandboxed here: bubblewrap is Linux's.
func CanSandbox() error {
	return errors.New("--sandbox needs bubblewrap, which runs on Linux only")
}
